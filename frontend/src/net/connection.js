// @ts-check
// The websocket to the server: connect, reconnect with backoff, number outgoing messages and
// route acks and errors back to whoever sent the message (so errors can appear next to the
// control that caused them). Protocol v1 (docs/protocol.md).

const BACKOFF_FIRST = 0.3; // s
const BACKOFF_MAX = 5.0; // s

/** The URL of /ws next to the page, carrying the room. The token is not in it: it goes as
 * the first message (`auth`), so it never reaches an access log.
 * @param {string} room */
export function socketUrl(room) {
  const url = new URL('ws', window.location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.searchParams.set('room', room);
  // a Share link: the server makes the room from this snapshot if it does not exist yet
  const snapshot = new URLSearchParams(window.location.search).get('snapshot');
  if (snapshot) url.searchParams.set('snapshot', snapshot);
  return url.toString();
}

const AUTH_ID = 'auth';

/** @typedef {import('./messages.gen.js').ClientMessage} ClientMessage */
/** @typedef {import('./messages.gen.js').ServerMessage} ServerMessage */
/** @typedef {import('./messages.gen.js').Ack} Ack */
/** @typedef {import('./messages.gen.js').ErrorMessage} ErrorMessage */
/**
 * Who waits for the answer to a message: its ack, its error, or neither (the connection closed).
 * @typedef {{onAck?: (ack: Ack) => void, onError?: (error: ErrorMessage) => void, onLost?: () => void}} Handlers
 */
/** @typedef {{state: string, attempt: number, retryIn: number}} ConnectionStatus */

export class Connection {
  /**
   * @param {object} opts
   * @param {string} opts.room
   * @param {string|null} opts.token
   * @param {(msg: ServerMessage) => void} opts.onMessage  every hello and state (and unrouted acks and errors)
   * @param {(status: ConnectionStatus) => void} opts.onStatus
   */
  constructor({ room, token, onMessage, onStatus }) {
    this.room = room;
    this.token = token;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.nextId = 1;
    /** @type {Map<string, Handlers & {of: ClientMessage['type']}>} id -> who waits for its answer */
    this.pending = new Map();
    this.attempt = 0;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    this.everOpen = false;
    this.connected = false;
    /** Watching (no token for a server that needs one): nothing is sent at all. */
    this.readOnly = false;
    /** @type {string[]} The `type` of every message sent, in order (what the page asked of the server). */
    this.sentTypes = [];
    /** The token was sent and not answered yet: the watcher's hello that came first waits. */
    this.authPending = false;
    /** @type {import('./messages.gen.js').Hello | null} */
    this.heldHello = null;
  }

  connect() {
    clearTimeout(this.timer);
    this.timer = undefined;
    const ws = new WebSocket(socketUrl(this.room));
    this.ws = ws;
    this.onStatus({ state: this.everOpen ? 'reconnecting' : 'connecting', attempt: this.attempt, retryIn: 0 });
    ws.onopen = () => {
      this.attempt = 0;
      this.everOpen = true;
      this.connected = true;
      if (this.token) {
        this.authPending = true;
        this.heldHello = null;
        /** @type {import('./messages.gen.js').Auth} */
        const auth = { type: 'auth', token: this.token, id: AUTH_ID };
        this.sentTypes.push(auth.type);
        ws.send(JSON.stringify(auth));
      }
      this.onStatus({ state: 'open', attempt: 0, retryIn: 0 });
    };
    ws.onmessage = (ev) => this.receive(ev.data);
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.connected = false;
      // messages in flight will never be answered: forget them
      for (const p of this.pending.values()) p.onLost?.();
      this.pending.clear();
      this.scheduleReconnect();
    };
    ws.onerror = () => {}; // onclose follows and handles it; nothing useful to print here
  }

  scheduleReconnect() {
    this.attempt += 1;
    const base = Math.min(BACKOFF_MAX, BACKOFF_FIRST * 2 ** (this.attempt - 1));
    const delay = base * (0.8 + 0.4 * Math.random()); // jitter: a class of browsers must not reconnect in step
    this.onStatus({ state: 'reconnecting', attempt: this.attempt, retryIn: delay });
    this.timer = setTimeout(() => this.connect(), delay * 1000);
  }

  /**
   * A message from the server, JSON text: the page connects without ?frames=binary, so every
   * state frame is a JSON `state` message (a binary one is ignored, not guessed at).
   * @param {string | ArrayBuffer | Blob} data
   */
  receive(data) {
    /** @type {ServerMessage} */
    let msg;
    if (typeof data !== 'string') return;
    try {
      msg = JSON.parse(data);
    } catch {
      return;
    }
    if (this.authPending) {
      // The server's first hello (can_control false) precedes the answer to `auth`; after an
      // ack a new hello follows, after an error the held one stands: the page watches.
      if (msg.type === 'hello') {
        this.heldHello = msg;
        return;
      }
      if ((msg.type === 'ack' || msg.type === 'error') && msg.id === AUTH_ID) {
        this.authPending = false;
        if (msg.type === 'error' && this.heldHello) this.onMessage(this.heldHello);
        this.heldHello = null;
        return;
      }
    }
    if (msg.type === 'ack' || msg.type === 'error') {
      const key = msg.id == null ? null : String(msg.id);
      const p = key && this.pending.get(key);
      if (p) {
        this.pending.delete(key);
        if (msg.type === 'ack') p.onAck?.(msg);
        else p.onError?.(msg);
        return;
      }
      if (msg.type === 'ack') return;
    }
    this.onMessage(msg);
  }

  /**
   * Send a message; returns its id, or null when not connected.
   * @param {ClientMessage} msg  without id (one is given here)
   * @param {Handlers} [handlers]
   * @returns {string | null}
   */
  send(msg, handlers = {}) {
    // a watcher sends nothing but its answer to the room's question (view/answer.js)
    if ((this.readOnly && msg.type !== 'answer') || !this.ws || this.ws.readyState !== WebSocket.OPEN) return null;
    this.sentTypes.push(msg.type);
    const id = String(this.nextId++);
    this.pending.set(id, { of: msg.type, ...handlers });
    if (this.pending.size > 500) {
      // answers that never came (should not happen): keep the map small
      const first = this.pending.keys().next().value;
      if (first !== undefined) this.pending.delete(first);
    }
    this.ws.send(JSON.stringify({ ...msg, id }));
    return id;
  }
}
