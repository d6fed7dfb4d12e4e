"""What stands between the network and the app: a limit on request bodies, the Host
header checked against the names the server answers to (a web page elsewhere cannot
reach a loopback server through DNS rebinding), and who a client is."""

from __future__ import annotations

import ipaddress
import json
import re
from typing import Iterable

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["BodyLimit", "HostCheck", "allowed_hosts", "client_of", "LOOPBACK_NAMES", "MAX_BODY_BYTES"]

MAX_BODY_BYTES = 64 * 1024  # the largest real body (a rebuilt game) is under 1 kB
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
_CLIENT_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


async def _refuse(send: Send, status: int, message: str) -> None:
    body = json.dumps({"detail": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
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


def _host_name(header: str) -> str:
    """The name in a Host header, without its port: ``[::1]:8000`` -> ``::1``."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class HostCheck:
    """Answer only requests whose Host header names this server (421 otherwise).

    ``hosts`` holds names and addresses; ``"*"`` accepts any (a server bound to all
    interfaces whose names are not known)."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str]) -> None:
        self.app = app
        self.hosts = {_host_name(h) for h in hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or "*" in self.hosts:
            return await self.app(scope, receive, send)
        header = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"host"), "")
        if _host_name(header) not in self.hosts:
            return await _refuse(send, 421, f"this server does not answer to the host {header!r}; "
                                            "open it by its own address")
        return await self.app(scope, receive, send)


def allowed_hosts(bind: str, extra: Iterable[str] = ()) -> list[str]:
    """The names a server bound to ``bind`` answers to by default: the loopback names
    and the bound address itself; any name when bound to all interfaces."""
    names = [*LOOPBACK_NAMES, *extra]
    try:
        address = ipaddress.ip_address(bind.strip("[]"))
    except ValueError:
        return names + [bind]
    if address.is_unspecified and not list(extra):
        return ["*"]
    return names + [str(address)]


def client_of(request: Request) -> str:
    """Who is asking: the page's own id (its ``X-Client`` header) at its address.
    Work is bounded per client."""
    page = request.headers.get("x-client", "")
    host = request.client.host if request.client else "?"
    return f"{host}/{page}" if _CLIENT_ID.match(page) else host
