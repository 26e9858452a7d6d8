// @ts-check
// The lecturer's requests to the server's REST API, with the token as a Bearer header. A
// refusal keeps the server's status and its `detail` (a string, or FastAPI's list of
// {loc, msg} naming the fields), so a form can show each reason beside its field.

export class ApiError extends Error {
  /** @param {number} status @param {unknown} detail */
  constructor(status, detail) {
    // 403 is said as "forbidden": the page tells a watcher that it needs the token
    super(status === 403 ? 'forbidden' : `${status}: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`);
    this.status = status;
    this.detail = detail;
  }
}

/**
 * @param {string} token the lecturer's token ('' when the server has none)
 * @returns {(path: string, init?: RequestInit) => Promise<any>}
 */
export function client(token) {
  return async (path, init = {}) => {
    const headers = { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) };
    const reply = await fetch(`../api/${path}`, { ...init, headers });
    if (!reply.ok) {
      const text = await reply.text();
      let detail = text;
      try {
        detail = JSON.parse(text).detail ?? text;
      } catch {
        // not JSON (a proxy's page): the text is the reason
      }
      throw new ApiError(reply.status, detail);
    }
    return reply.json();
  };
}
