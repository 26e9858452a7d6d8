"""How a worker or gateway logs in to NATS: credentials and TLS, from the environment or
the `--nats` URLs (never from the command line's other options: a password there shows in
`ps`).

- `SIXDOF_NATS_USER` / `SIXDOF_NATS_PASSWORD`: a user and password (the user is `sixdof`
  if only the password is given, as `deploy/nats.conf` names it); or in the URL,
  `nats://USER:PASSWORD@HOST:4222` (percent-encoded). Either way they are given to nats-py
  as options, not left in the URLs: the servers a NATS cluster announces carry no
  credentials, and a worker failing over to one must still log in.
- `SIXDOF_NATS_CREDS`: a `.creds` file (a user JWT and its nkey seed, `nsc` makes them);
  `SIXDOF_NATS_NKEY`: an nkey seed file. Both need the `nkeys` package.
- `tls://` URLs connect with TLS, checked against the system's CAs or `SIXDOF_NATS_CA`
  (a PEM bundle); `SIXDOF_NATS_CERT` and `SIXDOF_NATS_KEY` give a client certificate, for a
  server that verifies them.

Imports nothing of nats-py: the command line checks these before the cluster extra loads.
"""

from __future__ import annotations

import importlib.util
import os
import ssl
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

from .urls import parse_urls

USER_ENV = "SIXDOF_NATS_USER"
PASSWORD_ENV = "SIXDOF_NATS_PASSWORD"
CREDS_ENV = "SIXDOF_NATS_CREDS"
NKEY_ENV = "SIXDOF_NATS_NKEY"
CA_ENV = "SIXDOF_NATS_CA"
CERT_ENV = "SIXDOF_NATS_CERT"
KEY_ENV = "SIXDOF_NATS_KEY"
DEFAULT_USER = "sixdof"


@dataclass(frozen=True)
class Login:
    """The servers to connect to (without credentials) and nats-py's options to log in."""

    urls: list[str]
    options: dict[str, Any] = field(default_factory=dict, repr=False)  # holds secrets

    @property
    def how(self) -> str:
        """How this process logs in, for its log (never a secret)."""
        kinds = (("user", f"user {self.options.get('user')}"), ("token", "a token"),
                 ("user_credentials", "a creds file"), ("nkeys_seed", "an nkey"))  # fmt: skip
        who = next((text for key, text in kinds if key in self.options), "no credentials")
        return f"{who}{', TLS' if 'tls' in self.options else ''}"


def login(urls: str | Sequence[str], env: Mapping[str, str] | None = None) -> Login:
    """The Login of `--nats` URLs and the environment `env` (os.environ by default).
    Raises ValueError naming the variable or option that is wrong."""
    env = os.environ if env is None else env
    clean, users = [], set()
    for url in parse_urls(urls):
        parts = urlsplit(url if "://" in url else f"nats://{url}")
        if parts.username is not None:
            users.add((unquote(parts.username), None if parts.password is None
                       else unquote(parts.password)))  # fmt: skip
        host = parts.hostname or ""
        host = f"[{host}]" if ":" in host else host
        netloc = host if parts.port is None else f"{host}:{parts.port}"
        clean.append(urlunsplit((parts.scheme, netloc, parts.path, parts.query, "")))
    if len(users) > 1:
        raise ValueError("--nats: the URLs give different credentials; give one user for all")
    options: dict[str, Any] = {}
    user, password = env.get(USER_ENV) or None, env.get(PASSWORD_ENV) or None
    if user is not None and password is None:
        raise ValueError(f"{USER_ENV}: set, but {PASSWORD_ENV} is not")
    if password is not None:
        options.update(user=user or DEFAULT_USER, password=password)
    elif users:
        (name, secret), *_ = users
        if secret is None:  # nats://TOKEN@host, as nats-py reads it
            options["token"] = name
        else:
            options.update(user=name, password=secret)
    for variable, option in ((CREDS_ENV, "user_credentials"), (NKEY_ENV, "nkeys_seed")):
        if env.get(variable):
            path = _file(env, variable)
            if importlib.util.find_spec("nkeys") is None:
                raise ValueError(f"{variable}: needs the nkeys package (pip install nkeys)")
            options[option] = str(path)
    if any(u.startswith(("tls://", "wss://")) for u in clean) or any(
        env.get(v) for v in (CA_ENV, CERT_ENV, KEY_ENV)
    ):
        options["tls"] = _tls(env)
    return Login(clean, options)


def shown(urls: str | Sequence[str]) -> str:
    """`urls` as a log line may show them: any password replaced by `***`."""
    out = []
    for url in parse_urls(urls):
        parts = urlsplit(url if "://" in url else f"nats://{url}")
        if parts.password is not None:
            netloc = parts.netloc.rpartition("@")[2]
            url = urlunsplit(parts._replace(netloc=f"{parts.username}:***@{netloc}"))
        out.append(url)
    return ",".join(out)


def _file(env: Mapping[str, str], variable: str) -> Path:
    path = Path(env[variable]).expanduser()
    if not path.is_file():
        raise ValueError(f"{variable}: no such file: {path}")
    return path


def _tls(env: Mapping[str, str]) -> ssl.SSLContext:
    """A client's TLS context: the server checked against `SIXDOF_NATS_CA` (or the system's
    CAs), and this process's own certificate if one is given."""
    ca = _file(env, CA_ENV) if env.get(CA_ENV) else None
    try:
        context = ssl.create_default_context(cafile=None if ca is None else str(ca))
    except ssl.SSLError as exc:
        raise ValueError(f"{CA_ENV}: not a PEM bundle of CA certificates: {exc}") from None
    if bool(env.get(CERT_ENV)) != bool(env.get(KEY_ENV)):
        raise ValueError(f"{CERT_ENV} and {KEY_ENV}: give both (a certificate and its key)")
    if env.get(CERT_ENV):
        try:
            context.load_cert_chain(_file(env, CERT_ENV), _file(env, KEY_ENV))
        except ssl.SSLError as exc:
            raise ValueError(f"{CERT_ENV}: cannot be used with {KEY_ENV}: {exc}") from None
    return context
