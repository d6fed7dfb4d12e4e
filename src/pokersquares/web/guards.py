"""What stands between the network and the app: a limit on request bodies and on the
time they take to arrive, the Host header checked against the names the server answers
to (a web page elsewhere cannot reach a loopback server through DNS rebinding), and who
a client is."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import re
from typing import Iterable

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["ANY_ADDRESS", "BodyLimit", "BodyTimeout", "HostCheck", "allowed_hosts", "client_of", "host_name_error",
           "LOOPBACK_NAMES", "MAX_BODY_BYTES", "READ_S", "refusal"]

MAX_BODY_BYTES = 64 * 1024  # the largest real body (a rebuilt game) is under 1 kB
# The most seconds a client may take to send a request's head (its line and headers),
# and again its body: 64 kB take 10 s at 50 kbit/s.
READ_S = 15.0
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
# Among the hosts a HostCheck accepts: any IP address (a literal in the Host header,
# never a name: DNS rebinding needs a name, a page opened by address is this server's own).
ANY_ADDRESS = "<any IP address>"
_CLIENT_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_LABEL = r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?"
_HOST_NAME = re.compile(rf"^{_LABEL}(?:\.{_LABEL})*\.?$", re.IGNORECASE)


def refusal(message: str) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """The headers and body of an answer refusing a request: ``message`` as its JSON
    ``detail``, and the connection closed after it."""
    body = json.dumps({"detail": message}).encode()
    return [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
            (b"connection", b"close")], body


async def _refuse(send: Send, status: int, message: str) -> None:
    headers, body = refusal(message)
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    """Refuse bodies over ``max_bytes`` with 413, by their Content-Length before any
    byte is read, or by counting when they are sent in chunks."""

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        message = f"the request body is over the limit of {self.max_bytes} bytes"
        for name, value in scope["headers"]:
            if name == b"content-length":
                try:
                    too_big = int(value) > self.max_bytes
                except ValueError:
                    return await _refuse(send, 400, "the Content-Length header is not a number")
                if too_big:
                    return await _refuse(send, 413, message)
                return await self.app(scope, receive, send)  # the server reads no more than that
        # No length given (a chunked body): read it here, up to the limit, and hand it on.
        chunks, seen = [], 0
        while True:
            msg = await receive()
            if msg["type"] != "http.request":
                return  # the client went away
            chunks.append(msg.get("body", b""))
            seen += len(chunks[-1])
            if seen > self.max_bytes:
                return await _refuse(send, 413, message)
            if not msg.get("more_body", False):
                break
        body = b"".join(chunks)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


class BodyTimeout:
    """Answer 408 to a request whose body has not all arrived within ``seconds`` of its
    head, and end it: the connection closes and the request's task ends. The app waited
    for the rest of a body (a Content-Length promising more than was sent) as long as
    the client kept the connection open. Once the body is in, the app's answer takes
    the time it takes."""

    def __init__(self, app: ASGIApp, seconds: float = READ_S) -> None:
        self.app, self.seconds = app, seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.seconds
        body_in = answered = timed_out = False

        async def bounded() -> Message:
            nonlocal body_in, timed_out
            if body_in:  # later calls wait for the client to go away, as long as the answer takes
                return await receive()
            try:
                # receive() runs in the request's own task: a message already in is taken
                # before a deadline passed in a stall of the loop cancels it (3.11's
                # wait_for cancelled receive() before it ran: a body in got 408).
                async with asyncio.timeout_at(deadline):
                    msg = await receive()
            except TimeoutError:
                timed_out = True
                if not answered:
                    await _refuse(send, 408, f"the request body did not all arrive within {self.seconds:g} s")
                return {"type": "http.disconnect"}
            body_in = msg["type"] != "http.request" or not msg.get("more_body", False)
            return msg

        async def guarded(msg: Message) -> None:
            nonlocal answered
            if timed_out:  # the app's answer to the disconnect it was told of
                return
            answered = True
            await send(msg)

        await self.app(scope, bounded, guarded)


def _host_name(header: str) -> str:
    """The name in a Host header, without its port: ``[::1]:8000`` -> ``::1``."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class HostCheck:
    """Answer only requests whose Host header names this server (421 otherwise).

    ``hosts`` holds names and addresses; ``"*"`` accepts any (a server bound to all
    interfaces whose names are not known); :data:`ANY_ADDRESS` accepts any IP address
    (a server bound to all interfaces that was given its names)."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str]) -> None:
        self.app = app
        hosts = list(hosts)
        self.any_address = ANY_ADDRESS in hosts
        self.hosts = {_host_name(h) for h in hosts if h != ANY_ADDRESS}

    def answers_to(self, header: str) -> bool:
        """Whether a request with this Host header is this server's to answer."""
        name = _host_name(header)
        return "*" in self.hosts or name in self.hosts or (self.any_address and _is_address(name))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or "*" in self.hosts:
            return await self.app(scope, receive, send)
        header = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"host"), "")
        if not self.answers_to(header):
            return await _refuse(send, 421, f"this server does not answer to the host {header!r}; "
                                            "open it by its own address")
        return await self.app(scope, receive, send)


def host_name_error(value: str) -> str | None:
    """What is wrong with ``value`` as a name for ``--allow-host`` (None: nothing): a
    host name (``myhost.lan``) or an IP address (``192.168.1.20``, ``fe80::1`` or
    ``[fe80::1]``), alone, without scheme, port or path; or ``*`` for any name."""
    if value == "*":
        return None
    if not value.strip():
        return "give a host name or an IP address, not an empty value"
    if value != value.strip() or any(c.isspace() for c in value):
        return "a host name has no spaces"
    if "://" in value:
        return "give the host name alone, without a scheme (e.g. 'myhost.lan', not 'http://myhost.lan')"
    if "/" in value or "?" in value or "#" in value or "@" in value:
        return "give the host name alone, without a path or user (e.g. 'myhost.lan')"
    if "%" in value:
        return "give an address without a zone ('%...'), e.g. 'fe80::1'"
    bare = value[1:-1] if value.startswith("[") and value.endswith("]") else value
    if _is_address(bare) and (bare == value or ":" in bare):  # brackets only round an IPv6 address
        return None
    if value.count(":") == 1 or (value.startswith("[") and "]:" in value):
        return "give the host name alone, without a port (the server answers to it on its own port)"
    if "*" in value:
        return "'*' stands only alone, for any name; patterns such as '*.lan' are not supported"
    if not _HOST_NAME.match(value) or len(value.rstrip(".")) > 253 or value.strip(".0123456789") == "":
        return "not a host name or an IP address (letters, digits, '-', '_' and dots, e.g. 'myhost.lan')"
    return None


def allowed_hosts(bind: str, extra: Iterable[str] = ()) -> list[str]:
    """The names a server bound to ``bind`` answers to: the loopback names, the bound
    address itself and the ``extra`` names (``--allow-host``; ``"*"`` among them: any).

    Bound to all interfaces (``0.0.0.0``, ``::``) it answers to any name; given ``extra``
    names as well, to those, the loopback names and any IP address: a page opened by
    one of this machine's addresses (``http://192.168.1.20:8000``) is answered still,
    a name that is not listed is not (DNS rebinding needs a name). Adding names never
    stops the server answering to an address it answered to without them."""
    extra = list(extra)
    if "*" in extra:
        return ["*"]
    names = [*LOOPBACK_NAMES, *extra]
    try:
        address = ipaddress.ip_address(bind.strip("[]"))
    except ValueError:
        return names + [bind]
    if address.is_unspecified:
        return names + [ANY_ADDRESS] if extra else ["*"]
    return names + [str(address)]


def client_of(request: Request) -> str:
    """Who is asking: the page's own id (its ``X-Client`` header) at its address.
    Work is bounded per client."""
    page = request.headers.get("x-client", "")
    host = request.client.host if request.client else "?"
    return f"{host}/{page}" if _CLIENT_ID.match(page) else host
