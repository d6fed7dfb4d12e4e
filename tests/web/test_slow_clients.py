"""Clients that start a request and never finish it, or never take its answer: `serve`
answers 408 and closes the connection once a request's headers, or its body, have not
all arrived within their bound (``READ_S``; small here), and cuts one whose client
takes no byte of its answer for ``WRITE_S``, where it held each such connection, and
the request's task while its body or answer was under way, as long as the client kept
it open. Normal requests are answered as before, slow answers and slow readers
included."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import threading
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from pokersquares.cli.web import bounded_http  # noqa: E402
from pokersquares.web import create_app  # noqa: E402
from pokersquares.web.app import STATIC_DIR  # noqa: E402
from pokersquares.web.guards import BodyTimeout  # noqa: E402

from .conftest import in_a_thread  # noqa: E402

READ_S = 0.5
WRITE_S = 0.5
# What the server adds to every answer, and what a refusal says: the 408s carry both.
REFUSAL_HEADERS = ["connection", "content-length", "content-type", "date", "server"]


def _serve(write_s: float = WRITE_S, **options):
    """The app served as `serve` serves it, with ``READ_S`` for a request's head and
    body and ``write_s`` for its answer: yields (its port, the uvicorn server)."""
    app = create_app(agents={}, store_path=None, read_s=READ_S)
    return in_a_thread(app, timeout_keep_alive=5, http=bounded_http(READ_S, write_s), **options)


@pytest.fixture
def served():
    with _serve() as served:
        yield served


def _post_head(port: int, length: int) -> bytes:
    return (f"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\n\r\n").encode()


def _until_closed(sock: socket.socket, within_s: float = 3.0) -> tuple[bytes, float, bool]:
    """What the server sends on ``sock`` until it closes it or ``within_s`` pass: (the
    bytes, the seconds taken, whether it closed). A client still sending when the server
    closed is reset at its next byte, after the bytes sent before the close are read."""
    start, got = time.monotonic(), b""
    sock.settimeout(0.05)
    while time.monotonic() - start < within_s:
        try:
            data = sock.recv(65536)
        except TimeoutError:
            continue
        except ConnectionResetError:
            return got, time.monotonic() - start, True
        if not data:
            return got, time.monotonic() - start, True
        got += data
    return got, time.monotonic() - start, False


def _piece(sock: socket.socket) -> bytes:
    """The next bytes on ``sock``; fails if the server closed it."""
    piece = sock.recv(65536)
    assert piece, "the server closed the connection"
    return piece


def _answer(sock: socket.socket) -> bytes:
    """One whole answer read from ``sock`` (its head and its Content-Length of body)."""
    sock.settimeout(5)
    got = b""
    while b"\r\n\r\n" not in got:
        got += _piece(sock)
    head, body = got.split(b"\r\n\r\n", 1)
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))
    while len(body) < length:
        body += _piece(sock)
    return head + b"\r\n\r\n" + body


def _detail(answer: bytes) -> str:
    return json.loads(answer.split(b"\r\n\r\n", 1)[1])["detail"]


def _header_names(answer: bytes) -> list[str]:
    head = answer.split(b"\r\n\r\n", 1)[0].decode("latin-1")
    return sorted(line.split(":", 1)[0].lower() for line in head.split("\r\n")[1:])


def _trickle(sock: socket.socket, byte: bytes) -> threading.Event:
    """Send ``byte`` on ``sock`` every 0.1 s until the event returned is set (or the
    connection is closed)."""
    stop = threading.Event()

    def trickle() -> None:
        while not stop.wait(0.1):
            try:
                sock.sendall(byte)
            except OSError:
                return

    threading.Thread(target=trickle, daemon=True).start()
    return stop


def _freed(server, within_s: float = 2) -> bool:
    """Whether the server holds no connection and no request's task, within ``within_s``."""
    deadline = time.monotonic() + within_s
    while server.server_state.connections or server.server_state.tasks:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


@pytest.mark.parametrize("trickled", [False, True], ids=["stopped", "a-byte-at-a-time"])
def test_a_body_that_never_all_arrives_is_answered_408_and_its_connection_and_task_end(served, caplog, trickled):
    """Content-Length 100 and 10 bytes sent: the request waited for the other 90 for as
    long as the client kept the connection (45 s and more), holding it and a task. The
    bound is the whole body's: a byte every 0.1 s, each within the bound of the last,
    is cut as well."""
    port, server = served
    with caplog.at_level(logging.WARNING), socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(_post_head(port, 100) + b'{"seed": 1')
        stop = _trickle(sock, b" ") if trickled else threading.Event()
        answer, took, closed = _until_closed(sock)
        stop.set()
    assert closed and READ_S * 0.8 < took < READ_S + 2, (answer, took)
    assert answer.startswith(b"HTTP/1.1 408 ") and answer.count(b"HTTP/1.1") == 1, answer
    assert _detail(answer) == f"the request body did not all arrive within {READ_S:g} s"
    assert _header_names(answer) == REFUSAL_HEADERS, answer
    assert _freed(server)
    # The app's own answer to the disconnect it was told of is not sent after the 408.
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


@pytest.mark.parametrize("case", ["stopped", "a-byte-at-a-time", "after-an-answer"])
def test_headers_that_never_all_arrive_are_answered_408_and_the_connection_closed(served, case):
    """The first byte of a request stopped uvicorn's idle clock for good: headers sent in
    part, or a byte every 0.1 s, held the connection as long as the client wished. The
    bound is each request's: a second request's head on a connection kept alive after
    an answer is bounded as the first's is."""
    port, server = served
    with socket.create_connection(("127.0.0.1", port)) as sock:
        if case == "after-an-answer":
            sock.sendall(f"GET /api/config HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            assert _answer(sock).startswith(b"HTTP/1.1 200 ")
        sock.sendall(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        stop = _trickle(sock, b"X") if case == "a-byte-at-a-time" else threading.Event()
        answer, took, closed = _until_closed(sock)
        stop.set()
    assert closed and READ_S * 0.8 < took < READ_S + 2, (answer, took)
    assert answer.startswith(b"HTTP/1.1 408 "), answer
    assert _detail(answer) == f"the request did not all arrive within {READ_S:g} s"
    assert _header_names(answer) == REFUSAL_HEADERS, answer
    assert _freed(server)


def test_the_rest_of_a_body_the_app_did_not_read_is_said_to_be_the_request(served):
    """A POST to an unknown route is answered 404 without its body being read; the rest
    of the body, not all sent, was then refused as "the request's headers" (the next
    request's, which had not begun)."""
    port, server = served
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(_post_head(port, 100).replace(b"/api/games", b"/api/nowhere") + b'{"seed": 1')
        assert _answer(sock).startswith(b"HTTP/1.1 404 ")
        sock.sendall(b"}")
        answer, _, closed = _until_closed(sock)
    assert closed and answer.startswith(b"HTTP/1.1 408 "), answer
    assert _detail(answer) == f"the request did not all arrive within {READ_S:g} s"
    assert _freed(server)


def _never_read(port: int, request: bytes) -> socket.socket:
    """A connection that sent ``request`` with a small receive buffer and reads nothing."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    sock.connect(("127.0.0.1", port))
    sock.sendall(request)
    return sock


def _wait_on_clients(server, clients: int) -> None:
    """Wait until ``clients`` connections have answers waiting on their client (uvicorn
    paused their writing): the write clock runs from then."""
    deadline = time.monotonic() + 5
    while sum(c.flow.write_paused for c in list(server.server_state.connections)) < clients:
        assert time.monotonic() < deadline, "the answers did not wait on the clients"
        time.sleep(0.01)


@pytest.mark.parametrize("case", ["pipelined", "the-last-bytes-of-an-answer"])
def test_a_client_that_never_reads_its_answers_is_cut_and_its_connection_and_task_end(caplog, case):
    """Ten connections asking for the page's script 60 times each and reading nothing
    held their connections, and each a request's task waiting to send, for as long as
    the clients kept them open (past 100 s with the bound at 15 s). So did an answer's
    last bytes, fewer than the 64 kB past which asyncio pauses writing, left for a
    client that never took them: closed after the keep-alive, the connection waited to
    send them first. The cut comes ``WRITE_S`` after the client last took a byte, at the
    clock's next look (a tenth of that later)."""
    pipelined = case == "pipelined"
    path, times, clients = ("/static/app.js", 60, 10) if pipelined else ("/static/app.css", 1, 1)
    with caplog.at_level(logging.WARNING), _serve(send_buffer=None if pipelined else 4096) as (port, server):
        request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode() * times
        socks = [_never_read(port, request) for _ in range(clients)]
        try:
            _wait_on_clients(server, clients)
            start = time.monotonic()
            assert _freed(server, WRITE_S * 1.1 + 0.25)
            took = time.monotonic() - start
        finally:
            for sock in socks:
                sock.close()
    assert WRITE_S * 0.9 <= took, took
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


def test_a_client_not_reading_does_not_hold_the_server_stopping():
    """Stopping the server (Ctrl-C) closed each connection after its answer, and closing
    waited for the answer's bytes to leave: with a client not reading, for the whole
    write bound, and nothing said meanwhile. Such a connection is cut at once."""
    with _serve(write_s=30, send_buffer=4096) as (port, server):
        request = f"GET /static/app.js HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode() * 10
        with _never_read(port, request):
            _wait_on_clients(server, 1)
            start = time.monotonic()
            server.should_exit = True
            assert _freed(server, 2)
    assert time.monotonic() - start < 3  # the server's thread has ended


@pytest.mark.parametrize("send_buffer", [4096, 65536], ids=["small-send-buffer", "large-send-buffer"])
def test_a_slow_client_that_keeps_reading_gets_its_whole_answer(send_buffer):
    """The write bound is on a client taking nothing, not on the answer's time: one that
    takes at most 4 kB every 0.1 s is sent the page's script (87 kB) whole, over four
    times the bound. The bytes it takes count where they wait, in the kernel too: with a
    large send buffer the kernel takes more of the answer only once the client has taken
    a third of it, longer than the bound (on a slow link at 30 s as well), and the
    client was cut though it kept reading."""
    script = (STATIC_DIR / "app.js").read_bytes()
    with (_serve(send_buffer=send_buffer) as (port, _),
          _never_read(port, f"GET /static/app.js HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()) as sock):
        start, got = time.monotonic(), b""
        sock.settimeout(5)
        while b"\r\n\r\n" not in got or len(got.split(b"\r\n\r\n", 1)[1]) < len(script):
            time.sleep(0.1)
            piece = sock.recv(4096)
            assert piece, f"cut after {len(got)} bytes in {time.monotonic() - start:.1f} s"
            got += piece
        took = time.monotonic() - start
    assert got.startswith(b"HTTP/1.1 200 ") and got.endswith(script) and took > WRITE_S * 4, took


def test_a_connection_kept_alive_after_an_answer_that_waited_on_its_client_is_not_cut():
    """The write clock stops once the answer has left: a connection idle past the write
    bound after an answer the client took slowly is kept alive, and its next request
    answered."""
    with (_serve(send_buffer=4096) as (port, _),
          _never_read(port, f"GET /static/app.js HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()) as sock):
        assert _answer(sock).startswith(b"HTTP/1.1 200 ")
        time.sleep(WRITE_S * 3)
        sock.sendall(f"GET /api/config HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        second = _answer(sock)
    assert second.startswith(b"HTTP/1.1 200 "), second


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


def test_a_body_already_in_is_taken_after_a_stall_past_the_bound():
    """On Python 3.11 the bound's wait cancelled receive() before it ran once its time
    was past: a body already in, met by the app after the loop stalled past the bound
    (another request's work), was answered 408."""
    async def app(scope, receive, send):
        time.sleep(0.2)  # the loop stalls
        assert (await receive())["body"] == b"{}"
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    messages = [{"type": "http.request", "body": b"{}", "more_body": False}]
    sent = []

    async def receive():
        return messages.pop()

    async def send(message):
        sent.append(message)

    asyncio.run(BodyTimeout(app, seconds=0.1)({"type": "http", "headers": []}, receive, send))
    assert [m.get("status") for m in sent if m["type"] == "http.response.start"] == [200]


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
