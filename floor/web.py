"""``threecard floor web``: the pit page and ``/metrics``, read-only, over aiohttp.

A pit role's PIN opens a session; ``/metrics`` needs a bearer token, or its own listener
on the loopback interface.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import logging
import secrets
import ssl
import threading
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aiohttp import web
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest

from controller.game.auth import PinLockout, parse_pin_hash, verify_pin
from controller.game.config import (
    MAX_LOCKOUT_AFTER,
    MAX_LOCKOUT_SECONDS,
    MIN_LOCKOUT_AFTER,
    MIN_LOCKOUT_SECONDS,
)
from floor import web_data, web_pages
from floor.store_base import StoreError
from floor.web_metrics import registry
from floor.web_text import lang_of, text

POLL_S = 0.5
# A login lasts a shift.
SESSION_S = 12 * 3600
LAST_ROUNDS = 10
COOKIE = "pit_session"
log = logging.getLogger("threecard.floor")


class WebError(Exception):
    """The web server's settings cannot be used (the message says which and why)."""


@dataclass(frozen=True, slots=True)
class PitRoles:
    """The ``[roles]`` section of the floor's configuration file (``pit``: the PIN's hash)."""

    pit: str
    lockout_after: int = 5
    lockout_seconds: int = 300


def read_roles(path: str | Path) -> PitRoles:
    """The ``[roles]`` of a floor configuration file (WebError naming the key if unusable)."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise WebError(f"{path}: {exc}") from None
    roles = data.get("roles")
    if not isinstance(roles, dict) or "pit" not in roles:
        raise WebError(f"{path}: [roles] pit: the pit role's PIN hash is missing (make one "
                       "with `threecard hash-pin`)")
    unknown = set(roles) - {"pit", "lockout_after", "lockout_seconds"}
    if unknown:
        raise WebError(f"{path}: [roles] {sorted(unknown)[0]}: unknown (pit, lockout_after, "
                       "lockout_seconds)")
    try:
        parse_pin_hash(roles["pit"] if isinstance(roles["pit"], str) else "")
    except ValueError as exc:
        raise WebError(f"{path}: [roles] pit: must be a PIN hash from `threecard hash-pin` "
                       f"(scrypt$...), never a PIN: {exc}") from None
    bounds = {"lockout_after": (5, MIN_LOCKOUT_AFTER, MAX_LOCKOUT_AFTER),
              "lockout_seconds": (300, MIN_LOCKOUT_SECONDS, MAX_LOCKOUT_SECONDS)}
    got = {}
    for key, (default, low, high) in bounds.items():
        v = got[key] = roles.get(key, default)
        if type(v) is not int or not low <= v <= high:
            raise WebError(f"{path}: [roles] {key}: must be a whole number from {low} to "
                           f"{high}, got {v!r}")
    return PitRoles(roles["pit"], **got)


def read_token(path: str | Path) -> str:
    """The bearer token of ``/metrics``: the file's first line, 16 characters or more (WebError)."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise WebError(f"{path}: {exc}") from None
    token = lines[0].strip() if lines else ""
    if len(token) < 16:
        raise WebError(f"{path}: the metrics token must be at least 16 characters")
    return token


def loopback(host: str) -> bool:
    """True when ``host`` names the loopback interface (the metrics' own listener)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass
class Gate:
    """The pit role's login: PIN checks, the lockout, the open sessions."""

    roles: PitRoles
    lockout: PinLockout = field(default_factory=PinLockout)
    sessions: dict[str, float] = field(default_factory=dict)
    clock: Callable[[], int] = time.monotonic_ns

    def locked_s(self) -> int:
        """Seconds PIN entry stays locked (0: it is not)."""
        return -(-self.lockout.ms_left(self.clock(), "") // 1000)

    def login(self, pin: str) -> str | None:
        """A new session's token for the right PIN; None for a wrong one (counted)."""
        now = self.clock()
        self.lockout.observe(now)
        if self.lockout.locked(now, ""):
            return None
        if not verify_pin(pin, self.roles.pit):
            self.lockout.wrong_pin(now, "", self.roles.lockout_after,
                                   self.roles.lockout_seconds)
            return None
        self.lockout.right_pin()
        token = secrets.token_urlsafe(32)
        self.sessions[token] = time.monotonic() + SESSION_S
        return token

    def valid(self, token: str | None) -> bool:
        """True for an open session's token."""
        until = self.sessions.get(token or "")
        if until is None or until < time.monotonic():
            self.sessions.pop(token or "", None)
            return False
        return True


class StoreUnavailable(Exception):
    """The store cannot be read now (the web server answers 503 until it can)."""


class Reader:
    """The store, read one request at a time in a worker thread (it is synchronous).

    A failing store is opened again and read once more, else :class:`StoreUnavailable`.
    StoreError when it cannot be opened as the server starts.
    """

    def __init__(self, open_store: Callable[[], Any]) -> None:
        self.open_store = open_store
        self.store: Any = open_store()
        self.name = self.store.path
        self.errors: tuple[type[Exception], ...] = (*self.store.db.errors, StoreError)
        self.lock = threading.Lock()
        self.down = False

    def _read(self, what: Callable[[Any], Any]) -> Any:
        try:
            if self.store is None:
                self.store = self.open_store()
            return what(self.store)
        except self.errors:
            self.close()
            raise

    def __call__(self, what: Callable[[Any], Any]) -> Any:
        """``what(store)`` under the lock (StoreUnavailable: unreadable even opened again)."""
        with self.lock:
            try:
                got = self._read(what)
            except self.errors:
                try:  # a connection the server closed: a new one may do
                    got = self._read(what)
                except self.errors as exc:
                    if not self.down:
                        self.down = True
                        why = (str(exc).strip() or type(exc).__name__).splitlines()[0]
                        log.error("floor web: the store %s cannot be read (%s); answering "
                                  "503 until it can", self.name, why)
                    raise StoreUnavailable(self.name) from None
            if self.down:
                self.down = False
                log.info("floor web: the store %s can be read again", self.name)
            return got

    async def run(self, what: Callable[[Any], Any]) -> Any:
        """``what(store)`` in a worker thread."""
        return await asyncio.to_thread(self, what)

    def close(self) -> None:
        """Close the store (the next read opens it again)."""
        store, self.store = self.store, None
        if store is not None:
            with contextlib.suppress(Exception):  # a connection already gone
                store.close()


def _lang(request: web.Request) -> str:
    return lang_of(request.query.get("lang") or request.cookies.get("lang"),
                   request.headers.get("Accept-Language"))


def _html(request: web.Request, body: str, status: int = 200) -> web.Response:
    resp = web.Response(text=body, content_type="text/html", status=status,
                        headers={"Cache-Control": "no-store",
                                 "Content-Security-Policy": "default-src 'self'; style-src "
                                 "'unsafe-inline'; script-src 'unsafe-inline'"})
    if request.query.get("lang"):
        resp.set_cookie("lang", _lang(request), max_age=365 * 86400, samesite="Strict")
    return resp


def make_app(reader: Reader, gate: Gate, token: str | None, secure: bool) -> web.Application:
    """The pit's application: pages, login, streams and (with ``token``) ``/metrics``."""
    app = web.Application(middlewares=[unavailable])
    metrics = registry(reader)
    pages = _Pages(reader, gate, secure)
    app.router.add_get("/", pages.pit)
    app.router.add_get("/login", pages.login_page)
    app.router.add_post("/login", pages.login)
    app.router.add_get("/logout", pages.logout)
    app.router.add_get("/table/{table}", pages.table)
    app.router.add_get("/events", pages.events)
    if token is not None:
        app.router.add_get("/metrics", metrics_handler(metrics, token))
    return app


@dataclass
class _Pages:
    """The pit's request handlers, on one store reader and one login gate."""

    reader: Reader
    gate: Gate
    secure: bool

    def logged_in(self, request: web.Request) -> bool:
        return self.gate.valid(request.cookies.get(COOKIE))

    async def login_page(self, request: web.Request) -> web.Response:
        return _html(request, web_pages.login(_lang(request)))

    async def login(self, request: web.Request) -> web.Response:
        gate, lang = self.gate, _lang(request)
        pin = str((await request.post()).get("pin", ""))[:32]
        was_locked = gate.locked_s() > 0
        session = await asyncio.to_thread(gate.login, pin)
        who = request.remote or "?"
        if session is None:
            left = gate.locked_s()
            if was_locked:
                log.warning("floor web: pit login from %s refused: PIN entry locked (%d s "
                            "left)", who, left)
            else:
                log.warning("floor web: wrong pit PIN from %s%s", who,
                            f"; PIN entry locked for {left} s" if left else "")
            why = text(lang, "locked", s=left) if left else text(lang, "wrong_pin")
            return _html(request, web_pages.login(lang, why), status=401)
        log.info("floor web: pit login from %s", who)
        resp = web.HTTPSeeOther("/")
        resp.set_cookie(COOKIE, session, httponly=True, samesite="Strict", secure=self.secure,
                        max_age=SESSION_S)
        raise resp

    async def logout(self, request: web.Request) -> web.Response:
        self.gate.sessions.pop(request.cookies.get(COOKIE, ""), None)
        resp = web.HTTPSeeOther("/login")
        resp.del_cookie(COOKIE)
        raise resp

    async def pit(self, request: web.Request) -> web.Response:
        if not self.logged_in(request):
            raise web.HTTPSeeOther("/login")
        lang = _lang(request)
        body = await self.reader.run(_pit_view(lang))
        return _html(request, web_pages.page(lang, text(lang, "title"), body,
                                             f"/events?lang={lang}"))

    async def table(self, request: web.Request) -> web.Response:
        if not self.logged_in(request):
            raise web.HTTPSeeOther("/login")
        lang, tid = _lang(request), request.match_info["table"]
        body = await self.reader.run(_table_view(tid, lang))
        if body is None:
            raise web.HTTPNotFound(text=f"no table {tid!r} on the floor")
        return _html(request, web_pages.page(
            lang, f"{text(lang, 'table')} {tid}", body,
            f"/events?lang={lang}&table={tid}"))

    async def events(self, request: web.Request) -> web.StreamResponse:
        if not self.logged_in(request):
            raise web.HTTPUnauthorized()
        lang, tid = _lang(request), request.query.get("table")
        view = _table_view(tid, lang) if tid else _pit_view(lang)
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream",
                                           "Cache-Control": "no-store"})
        await resp.prepare(request)
        sent, beat = None, time.monotonic()
        with contextlib.suppress(ConnectionResetError):  # the browser went away
            while self.logged_in(request):
                try:
                    now_text = await self.reader.run(view)
                except StoreUnavailable:  # the page keeps what it shows till the store is back
                    now_text = None
                if now_text != sent and now_text is not None:
                    data = "".join(f"data: {line}\n" for line in now_text.splitlines() or [""])
                    await resp.write(f"{data}\n".encode())
                    sent, beat = now_text, time.monotonic()
                elif time.monotonic() - beat > 15:
                    await resp.write(b": keep-alive\n\n")
                    beat = time.monotonic()
                await asyncio.sleep(POLL_S)
        return resp


def _pit_view(lang: str) -> Callable[[Any], str]:
    return lambda s: web_pages.pit_fragment(web_data.pit(s, datetime.now(UTC)), lang)


def _table_view(table: str, lang: str) -> Callable[[Any], str | None]:
    def view(s: Any) -> str | None:
        now = datetime.now(UTC)
        p = web_data.pit(s, now)
        row = next((r for r in p.tables if r.status.table_id == table), None)
        if row is None:
            return None
        j = row.status.journal
        return web_pages.table_fragment(
            row, web_data.last_rounds(s, table, j, LAST_ROUNDS),
            web_data.recent_alarms(s, table, j), now, lang)
    return view


@web.middleware
async def unavailable(request: web.Request, handler: Callable[..., Any]) -> web.StreamResponse:
    """A store that cannot be read: 503 and one line, never a traceback."""
    try:
        return await handler(request)
    except StoreUnavailable as exc:
        return web.Response(status=503, text=f"the floor's store {exc} cannot be read now; "
                            "try again in a moment\n", headers={"Retry-After": "5",
                                                                "Cache-Control": "no-store"})


def metrics_handler(reg: Any, token: str | None) -> Callable[..., Any]:
    """``/metrics``: the registry's text; with ``token``, only for ``Bearer <token>``."""
    async def handler(request: web.Request) -> web.Response:
        if token is not None:
            got = request.headers.get("Authorization", "")
            if not hmac.compare_digest(got.encode(), f"Bearer {token}".encode()):
                raise web.HTTPUnauthorized(headers={"WWW-Authenticate": "Bearer"})
        body = await asyncio.to_thread(generate_latest, reg)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})
    return handler


def _host_port(text_: str, what: str) -> tuple[str, int]:
    host, _, port = text_.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise WebError(f"{what}: HOST:PORT, got {text_!r}")
    return host.strip("[]"), int(port)


def tls_context(cert: str, key: str) -> ssl.SSLContext:
    """A server TLS context (TLS 1.2+) of a PEM chain and key (WebError: unreadable, mismatched)."""
    if not cert:
        raise WebError("--key: goes with --cert (the certificate it is the key of)")
    for flag, path in (("--cert", cert), ("--key", key)):
        try:
            if path:
                Path(path).open("rb").close()
        except OSError as exc:
            raise WebError(f"{flag} {path}: {exc.strerror or exc}") from None
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        ctx.load_cert_chain(cert, key or None)
    except (OSError, ssl.SSLError) as exc:
        raise WebError(f"--cert {cert}" + (f" --key {key}" if key else "")
                       + f": {exc}") from None
    return ctx


async def _serve(app: web.Application, listen: str, tls: ssl.SSLContext | None,
                 metrics_app: web.Application | None, metrics_listen: str | None,
                 stop: asyncio.Event, ready: Callable[[str], None]) -> None:
    runners = []
    try:
        for a, where, ctx in ((app, listen, tls), (metrics_app, metrics_listen, None)):
            if a is None or where is None:
                continue
            host, port = _host_port(where, "--listen")
            runner = web.AppRunner(a, access_log=None)
            await runner.setup()
            runners.append(runner)
            site = web.TCPSite(runner, host, port, ssl_context=ctx)
            try:
                await site.start()
            except OSError as exc:
                raise WebError(f"cannot listen on {where}: {exc.strerror or exc}") from None
            scheme = "https" if ctx else "http"
            ready(f"{'metrics' if a is metrics_app else 'pit page'} on {scheme}://{where}/"
                  + ("metrics" if a is metrics_app else ""))
        await stop.wait()
    finally:
        for r in runners:
            await r.cleanup()


def serve(open_store: Callable[[], Any], roles: PitRoles, listen: str, *,
          cert: str = "", key: str = "", metrics_token: str | None = None,
          metrics_listen: str | None = None, stop: threading.Event | None = None,
          ready: Callable[[str], None] = print) -> None:
    """Serve the pit page (and the metrics) until ``stop`` is set.

    Raises:
        WebError: a listener cannot be made, the metrics' own listener is not on the
            loopback interface, or TLS cannot start.
        StoreError: the store cannot be opened.
    """
    _host_port(listen, "--listen")
    if metrics_listen is not None and not loopback(_host_port(metrics_listen,
                                                              "--metrics-listen")[0]):
        raise WebError("--metrics-listen: bind it to the loopback interface (127.0.0.1 "
                       "or [::1]), or serve /metrics with --metrics-token-file")
    tls = tls_context(cert, key) if cert or key else None
    reader = Reader(open_store)
    try:
        app = make_app(reader, Gate(roles), metrics_token, tls is not None)
        metrics_app = None
        if metrics_listen is not None:
            metrics_app = web.Application(middlewares=[unavailable])
            metrics_app.router.add_get("/metrics", metrics_handler(registry(reader), None))
        asyncio.run(_main(app, listen, tls, metrics_app, metrics_listen, stop, ready))
    finally:
        reader.close()


async def _main(app: web.Application, listen: str, tls: ssl.SSLContext | None,
                metrics_app: web.Application | None, metrics_listen: str | None,
                stop: threading.Event | None, ready: Callable[[str], None]) -> None:
    done = asyncio.Event()
    loop = asyncio.get_running_loop()
    if stop is not None:
        threading.Thread(target=lambda: (stop.wait(), loop.call_soon_threadsafe(done.set)),
                         daemon=True).start()
    await _serve(app, listen, tls, metrics_app, metrics_listen, done, ready)
