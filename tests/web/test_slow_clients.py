"""Clients that start a request and never finish it: `serve` answers 408 and closes the
connection once a request's headers, or its body, have not all arrived within their
bound (``READ_S``; small here), where it held each such connection, and for a body the
request's task, as long as the client kept it open. Normal requests are answered as
before, slow answers included."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import threading
import time

import pytest

pytest.importorskip("fastapi")
uvicorn = pytest.importorskip("uvicorn")

from pokersquares.cli.web import _listen, first_request_timeout  # noqa: E402
from pokersquares.web import create_app  # noqa: E402
from pokersquares.web.guards import BodyTimeout  # noqa: E402

READ_S = 0.5


@pytest.fixture
def served():
    """The app served as `serve` serves it, with ``READ_S`` for a request's head and
    body: (its port, the uvicorn server)."""
    app = create_app(agents={}, store_path=None, read_s=READ_S)
    sockets = _listen("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", log_config=None, timeout_keep_alive=5,
                                           http=first_request_timeout(READ_S)))
    thread = threading.Thread(target=server.run, kwargs={"sockets": sockets}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield sockets[0].getsockname()[1], server
    finally:
        server.should_exit = True
        thread.join(10)


def _post_head(port: int, length: int) -> bytes:
    return (f"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\n\r\n").encode()


def _until_closed(sock: socket.socket, within_s: float = 3.0) -> tuple[bytes, float, bool]:
    """What the server sends on ``sock`` until it closes it or ``within_s`` pass: (the
    bytes, the seconds taken, whether it closed)."""
    start, got = time.monotonic(), b""
    sock.settimeout(0.05)
    while time.monotonic() - start < within_s:
        try:
            data = sock.recv(65536)
        except TimeoutError:
            continue
        if not data:
            return got, time.monotonic() - start, True
        got += data
    return got, time.monotonic() - start, False


def _answer(sock: socket.socket) -> bytes:
    """One whole answer read from ``sock`` (its head and its Content-Length of body)."""
    sock.settimeout(5)
    got = b""
    while b"\r\n\r\n" not in got:
        got += sock.recv(65536)
    head, body = got.split(b"\r\n\r\n", 1)
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))
    while len(body) < length:
        body += sock.recv(65536)
    return head + b"\r\n\r\n" + body


def _detail(answer: bytes) -> str:
    return json.loads(answer.split(b"\r\n\r\n", 1)[1])["detail"]


def _freed(server) -> bool:
    """Whether the server holds no connection and no request's task, within 2 s."""
    deadline = time.monotonic() + 2
    while server.server_state.connections or server.server_state.tasks:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_a_body_that_never_all_arrives_is_answered_408_and_its_connection_and_task_end(served, caplog):
    """Content-Length 100 and 10 bytes sent: the request waited for the other 90 for as
    long as the client kept the connection (45 s and more), holding it and a task."""
    port, server = served
    with caplog.at_level(logging.WARNING), socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(_post_head(port, 100) + b'{"seed": 1')
        answer, took, closed = _until_closed(sock)
    assert closed and READ_S * 0.8 < took < READ_S + 2, (answer, took)
    assert answer.startswith(b"HTTP/1.1 408 ") and answer.count(b"HTTP/1.1") == 1, answer
    assert _detail(answer) == f"the request body did not all arrive within {READ_S:g} s"
    assert _freed(server)
    # The app's own answer to the disconnect it was told of is not sent after the 408.
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


@pytest.mark.parametrize("trickled", [False, True], ids=["stopped", "a-byte-at-a-time"])
def test_headers_that_never_all_arrive_are_answered_408_and_the_connection_closed(served, trickled):
    """The first byte of a request stopped uvicorn's idle clock for good: headers sent in
    part, or a byte every 0.1 s, held the connection as long as the client wished."""
    port, server = served
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        stop = threading.Event()

        def trickle() -> None:
            while not stop.wait(0.1):
                try:
                    sock.sendall(b"X")
                except OSError:
                    return

        sender = threading.Thread(target=trickle, daemon=True)
        if trickled:
            sender.start()
        answer, took, closed = _until_closed(sock)
        stop.set()
    assert closed and READ_S * 0.8 < took < READ_S + 2, (answer, took)
    assert answer.startswith(b"HTTP/1.1 408 "), answer
    assert _detail(answer) == f"the request's headers did not all arrive within {READ_S:g} s"
    assert _freed(server)


def test_normal_requests_are_answered_as_before(served):
    """A body near the limit of 64 kB sent in pieces within the bound is answered; so is
    a request on a connection left idle longer than the bound between two requests (the
    head's clock starts at its first byte, the idle one is the keep-alive's)."""
    port, _ = served
    body = b'{"seed": 7' + b" " * 60_000 + b"}"  # JSON, whitespace and all
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(_post_head(port, len(body)))
        for i in range(0, len(body), 10_000):
            time.sleep(READ_S / 10)
            sock.sendall(body[i:i + 10_000])
        first = _answer(sock)
        assert first.startswith(b"HTTP/1.1 201 ") and b'"seed":7' in first, first
        time.sleep(READ_S * 2)
        sock.sendall(f"GET /api/config HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        second = _answer(sock)
    assert second.startswith(b"HTTP/1.1 200 "), second


def test_an_answer_slower_than_the_bound_is_not_cut_once_the_body_is_in():
    """Once the body is in, the app may take its time and listen for the client going
    away (as Starlette's streaming answers do): neither is bounded."""
    async def app(scope, receive, send):
        assert (await receive())["body"] == b"{}"
        listening = asyncio.ensure_future(receive())  # the client going away, if it does
        await asyncio.sleep(0.3)
        assert not listening.done()
        listening.cancel()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    messages = [{"type": "http.request", "body": b"{}", "more_body": False}]
    sent = []

    async def receive():
        if messages:
            return messages.pop()
        await asyncio.Event().wait()  # the client stays

    async def send(message):
        sent.append(message)

    asyncio.run(BodyTimeout(app, seconds=0.1)({"type": "http", "headers": []}, receive, send))
    assert [m.get("status") for m in sent if m["type"] == "http.response.start"] == [200]
