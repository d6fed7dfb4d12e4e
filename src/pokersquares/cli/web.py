"""The ``serve`` subcommand: run the web app with uvicorn."""

from __future__ import annotations

import errno
import ipaddress
import logging
import signal
import socket
import struct
import sys
import time
from pathlib import Path
from typing import Any, Optional

import typer

from ..errors import PokerSquaresError
from ..harness.store import DEFAULT_DB
from ..machine import usable_cores
from ..points import contest_specs, contest_words
from . import CONTEST_SHARED_HELP, app, check_result_store, fail, seconds_between


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _listen(host: str, port: int) -> list[socket.socket]:
    """The sockets the server serves on: ``host`` resolved and every address the name
    gives bound at ``port`` as asyncio binds them (SO_REUSEADDR, IPv6 sockets IPv6
    only), listening; port 0 takes a port free on all of them. A bad host or a port in
    use is said in one line before anything starts or the address is printed, and the
    port served is the one checked, known before it is printed."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError) as e:
        raise fail(f"--host {host!r}: not an address this machine can listen on ({e})") from None
    for _ in range(ANY_PORT_TRIES):
        bound = _bind(host, port, list(dict.fromkeys(infos)))
        if bound is not None:
            return bound
    raise fail(f"cannot listen on {host} (--port 0): no port was free on every address of it "
               f"in {ANY_PORT_TRIES} tries")


def _bind(host: str, port: int, infos: list) -> list[socket.socket] | None:
    """Sockets bound to each address of ``infos`` at ``port``, or with port 0 at the port
    the first one got, and listening (None if another address has that port taken: try
    again)."""
    bound: list[socket.socket] = []
    at = port
    try:
        for family, kind, proto, _, address in infos:
            try:
                sock = socket.socket(family, kind, proto)
            except OSError:
                continue  # a family this machine lacks: the server skips it too
            bound.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6 and hasattr(socket, "IPPROTO_IPV6"):
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                sock.bind((address[0], at, *address[2:]))
                sock.listen(BACKLOG)  # a client connecting as soon as the URL is printed is not refused
            except OSError as e:
                if port == 0 and at != 0 and e.errno == errno.EADDRINUSE:
                    for sock in bound:
                        sock.close()
                    return None
                shown = f"[{address[0]}]" if family == socket.AF_INET6 else address[0]
                raise fail(f"cannot listen on {shown}:{at} (--host {host}, --port {port}): "
                           f"{e.strerror or e}") from None
            at = sock.getsockname()[1]
        if not bound:
            raise fail(f"--host {host!r}: no address of it can be listened on")
    except BaseException:
        for sock in bound:
            sock.close()
        raise
    return bound


def _check_allow_hosts(values: list[str]) -> list[str]:
    """``--allow-host``'s callback: each value a host name or an IP address alone (one
    line naming the option otherwise, before anything starts)."""
    from ..web.guards import host_name_error

    for value in values:
        problem = host_name_error(value)
        if problem:
            raise typer.BadParameter(f"{value!r}: {problem}")
    return values


def _with_java_players(class_names: list[str], classpath: Optional[str], game_s: float):
    """The registered agents and the Java players, checked now (one line on any fault)."""
    from ..players.java import set_classpath
    from ..web.agents import registered_agents
    from ..web.java_agents import java_agents

    if classpath is None:
        raise PokerSquaresError("needs --classpath (the contest framework's classes and the player's)")
    set_classpath(classpath)
    java = java_agents(class_names, game_s)
    return lambda: {**registered_agents(), **java}


@app.command("serve")
def serve_cmd(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind; the default keeps the app on this machine."),
    port: int = typer.Option(8000, "--port", min=0, max=65535,
                             help="TCP port; 0 for any free one (the first line of output says which)."),
    prep_time: float = typer.Option(5.0, "--prep-time", callback=seconds_between(0.0, 600.0),
                                    help="Seconds an agent may learn a point system before it advises (0 to 600)."),
    think_time: float = typer.Option(2.0, "--think-time", callback=seconds_between(0.05, 60.0),
                                     help="Most seconds an agent may think per request (a hint or a watched move; "
                                          "0.05 to 60)."),
    game_time: float = typer.Option(10.0, "--game-time", callback=seconds_between(0.5, 600.0),
                                    help="An agent's clock for a whole game: when it replays your deal or reviews "
                                         "your moves, and for a Java player's watched game (0.5 to 600)."),
    db: Path = typer.Option(Path(DEFAULT_DB), "--db",
                            help="The result store (SQLite) the Results page reads; games played in the browser "
                                 "are recorded there as player 'human'."),
    warm: str = typer.Option("american", "--warm",
                             help="Point systems (';'-separated specs; 'contest' for the twelve of 2016, " + CONTEST_SHARED_HELP + ") every agent prepares for at start, "
                                  "so that first advice is quick; '' for none."),
    allow_host: list[str] = typer.Option([], "--allow-host", callback=_check_allow_hosts, metavar="NAME",
                                         help="Another host name (or IP address) the server answers to, alone: "
                                              "no scheme, port or path (repeatable). Against DNS rebinding it "
                                              "answers by default only to the address it is bound to and the "
                                              "loopback names; bound to all interfaces (--host 0.0.0.0 or ::), "
                                              "to any name, or, given --allow-host, to those names, the loopback "
                                              "names and any of its IP addresses. Adding a name never stops it "
                                              "answering to an address. '*' answers to any name: the guard is "
                                              "off (a warning says so)."),
    record: bool = typer.Option(True, "--record/--no-record", help="Record games played in the browser in --db."),
    java_player: list[str] = typer.Option([], "--java-player", metavar="<str>",
                                          help="A contest Java player's class (repeatable) to watch and replay deals "
                                               "with, as agent java-NAME; needs --classpath."),
    classpath: Optional[str] = typer.Option(None, "--classpath",
                                            help="For --java-player: the contest framework's classes and the "
                                                 "player's, separated by ':'."),
) -> None:
    """Start the local web app: play, get advice, watch agents, browse results.

    A client has 15 s to send a request's headers, and 15 s more for its body; past
    that it is answered 408 and its connection closed. One that takes no byte of an
    answer for 30 s is cut off."""
    try:
        import uvicorn

        from ..web import create_app
        from ..web.guards import READ_S, allowed_hosts
    except ImportError:
        raise fail("the web app needs the 'web' extra: pip install 'pokersquares[web]'") from None
    started = time.monotonic()

    def say(message: str) -> None:
        typer.echo(f"  [{time.monotonic() - started:5.1f} s] {message}", err=True)

    check_result_store(db, write=record)  # as run does: a folder or a foreign file is said now, not when a game ends
    systems = [spec for part in warm.split(";") if part.strip()  # 'contest' (or 'contest:shared'): its twelve
               for reading in [contest_words(part)]
               for spec in ([part.strip()] if reading is None else contest_specs(reading[1], shared=reading[0]))]
    agents = None
    if classpath is not None and not java_player:  # no other agent reads it
        raise fail("--classpath goes with --java-player (the Java players' classes)")
    if java_player:
        try:
            agents = _with_java_players(java_player, classpath, game_time)
        except PokerSquaresError as e:
            raise fail(f"--java-player: {e}") from None
    try:
        web_app = create_app(prep_s=prep_time, think_s=think_time, game_s=game_time, store_path=db,
                             hosts=allowed_hosts(host, allow_host), warm=systems, on_event=say,
                             record_games=record, agents=agents,
                             compile_processes=max(1, min(2, usable_cores())))
    except PokerSquaresError as e:
        raise fail(f"--warm: {e}") from None
    sockets = _listen(host, port)  # before the address is printed (the app starts its work only when served)
    port = sockets[0].getsockname()[1]  # the one port 0 found
    if not _is_loopback(host):
        typer.echo(f"warning: serving on {host}: anyone who can reach this address can use the app "
                   "(and its agents' CPU time)", err=True)
    if "*" in allow_host:
        typer.echo("warning: --allow-host '*': the server answers to any host name, so a web page elsewhere "
                   "can reach it through DNS rebinding", err=True)
    shown = f"[{host}]" if ":" in host else host
    typer.echo(f"Poker Squares at http://{shown}:{port}/  (Ctrl+C to stop)")
    typer.echo("Loading the agents in the background" + (f" and preparing them for {', '.join(systems)}" if systems else "")
               + " (a fresh install compiles them first, about a minute); the page shows progress.", err=True)
    _log_to_stderr()
    # A long keep-alive: on a loaded machine a stall of a few seconds must not close a
    # connection that already carries the page's next request (it would be reset).
    server = _server(uvicorn, uvicorn.Config(web_app, host=host, port=port, log_level="warning", log_config=None,
                                             timeout_keep_alive=KEEP_ALIVE_S, backlog=BACKLOG,
                                             http=bounded_http(READ_S, WRITE_S)))
    _hang_up_stops(server)
    # Not uvicorn.run, which swallows the Ctrl-C it re-raises after shutting down (and
    # the SIGTERM our handler turns into one): the command then ended with exit 0 and
    # no word. Here the signal reaches the command line's handler, which says it in one
    # line and exits 130, 143 or 129 as every other command does.
    global _not_recorded
    try:
        server.run(sockets=sockets)
    finally:
        for sock in sockets:  # uvicorn closes those it served on, not those of a server that did not start
            sock.close()
        # The agents' preparations and thinking under way end first (a learner cannot be
        # stopped mid-kernel; it stops at its next report): the process exiting while one
        # ran in a numba kernel could abort, exit 134 instead of the signal's code.
        if web_app.state.agents.closed:
            web_app.state.agents.join(JOIN_S)
        optimum = getattr(web_app.state, "optimum", None)
        if optimum is not None:  # a deal's optimum solved as the process exits aborts it as well
            optimum.join(JOIN_S)
        if web_app.state.recorder is not None:  # tried once more as the server stopped
            _not_recorded = len(web_app.state.recorder.kept)
    if not server.started:  # uvicorn logged why (the app's start-up failed, ...)
        raise fail(f"the server did not start on {shown}:{port}", code=1)


KEEP_ALIVE_S = 30  # the seconds a connection may stay idle, before its first request or between two
# The most seconds a client may take no byte of its answer before the connection is cut:
# a phone with poor reception stalls for some seconds but takes some every few; one that
# stopped reading held its connection as long as it kept it open.
WRITE_S = 30.0
# The ioctl that says the bytes a TCP socket's client has not acknowledged (Linux's
# SIOCOUTQ; TIOCOUTQ elsewhere is a terminal's): None where there is none.
try:
    import fcntl
    import termios
except ImportError:  # Windows
    _SIOCOUTQ = None
else:
    _SIOCOUTQ = termios.TIOCOUTQ if sys.platform.startswith("linux") else None
BACKLOG = 2048  # connections waiting to be accepted on each socket, as uvicorn's default
ANY_PORT_TRIES = 20  # --port 0 on a name with several addresses: ports tried for one free on all
JOIN_S = 15.0  # the longest a stopped server waits for its agents' work under way to end
# The finished games the result store had not taken when the server stopped (another
# process held its write lock, a full disk): said in the command's last line.
_not_recorded = 0


def stopped_note(args: list[str]) -> str:
    """What a stopped ``serve`` (the command line's words ``args``) leaves behind, for
    the line that ends it: whether the games people finished are in --db."""
    if "--no-record" in args:
        return "the server stopped"
    if _not_recorded:
        games = f"{_not_recorded} finished game" + ("" if _not_recorded == 1 else "s")
        return f"the server stopped; {games} could not be recorded in --db, as said above"
    return "the server stopped; finished games are recorded in --db"


def bounded_http(head_s: float | None = None, write_s: float | None = None):
    """uvicorn's HTTP protocol with bounds on a client's time: a connection that sends
    no request within :data:`KEEP_ALIVE_S` is closed, as one idle between requests is;
    one whose request's head (or the rest of a body the app did not read) has not all
    arrived within ``head_s`` seconds of its first byte (None:
    :data:`~pokersquares.web.guards.READ_S`) is answered 408 and closed; one whose
    client takes no byte of its answer for ``write_s`` seconds (None: :data:`WRITE_S`)
    is cut.

    uvicorn's own starts the idle clock only after a first response: a connection
    opened and never used (a laptop gone off the network mid-connect, a port scanner)
    kept its file for as long as the server ran, and 300 of them took the server from
    14 to 308 open files; at the usual limit of 1,024 it stops accepting. And any byte
    received stops that clock for good: a head sent in part, or a byte at a time, or
    the rest of a body the app did not read, held the connection as long as the client
    wished. A body the app reads is bounded by :class:`~pokersquares.web.guards.BodyTimeout`.
    Nor does it bound the time an answer waits to be taken: a client that never read
    held its connection, and the request's task while the answer was under way, for
    as long as it kept the connection open."""
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    from ..web.guards import READ_S, refusal

    head_limit_s: float = READ_S if head_s is None else head_s
    write_limit_s: float = WRITE_S if write_s is None else write_s
    headers, body = refusal(f"the request did not all arrive within {head_limit_s:g} s")

    protocol: Any = AutoHTTPProtocol  # uvicorn's choice of h11 or httptools, made at its import

    class BoundedHTTP(protocol):
        timeout_keep_alive_task: Any  # uvicorn's idle clock (an asyncio.TimerHandle), or None
        head_clock = None  # the clock of a head under way
        head_after = None  # the request cycle before that head: uvicorn makes a new one once the head is in
        write_clock = None  # while bytes wait for the client: when to look whether it took some
        write_left = 0  # the bytes its client had not acknowledged when it last looked
        write_taken = 0.0  # when it last saw the client take some (or writing paused)

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            # Writing pauses whenever bytes wait for the client (asyncio's default waits
            # for 64 kB), so that the write clock runs for the last bytes of an answer too.
            transport.set_write_buffer_limits(0)
            if self.timeout_keep_alive_task is None:  # the first data received cancels it, as uvicorn's does
                self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive,
                                                                    self.timeout_keep_alive_handler)

        def data_received(self, data: bytes) -> None:
            self._head_in()
            if self.head_clock is None and (self.cycle is None or self.cycle.response_complete):
                self.head_after = self.cycle
                self.head_clock = self.loop.call_later(head_limit_s, self._head_timed_out)
            super().data_received(data)
            self._head_in()

        def pause_writing(self) -> None:
            super().pause_writing()
            self.write_left, self.write_taken = self._unacknowledged(), self.loop.time()
            self.write_clock = self.loop.call_later(write_limit_s / 10, self._check_writing)

        def resume_writing(self) -> None:
            self._stop_write_clock()
            super().resume_writing()

        def shutdown(self) -> None:
            """uvicorn's shutdown, then a connection whose answer waits on its client cut at
            once: closing it waited for the bytes to leave, as long as the write bound."""
            super().shutdown()
            if self.flow.write_paused:
                self.transport.abort()

        def connection_lost(self, exc) -> None:
            if self.head_clock is not None:
                self.head_clock.cancel()
            self._stop_write_clock()
            super().connection_lost(exc)

        def _head_in(self) -> None:
            """Stop the head's clock if its request's head has all come."""
            if self.head_clock is not None and self.cycle is not self.head_after:
                self.head_clock.cancel()
                self.head_clock = None

        def _head_timed_out(self) -> None:
            self.head_clock = None
            if self.cycle is self.head_after and not self.transport.is_closing():
                self.transport.write(b"HTTP/1.1 408 Request Timeout\r\n"
                                     + b"".join(b"%s: %s\r\n" % h for h in self.server_state.default_headers + headers)
                                     + b"\r\n" + body)
                self.transport.close()

        def _stop_write_clock(self) -> None:
            if self.write_clock is not None:
                self.write_clock.cancel()
                self.write_clock = None

        def _unacknowledged(self) -> int:
            """The bytes of answers the client has not acknowledged: asyncio's buffer and
            the socket's send queue (Linux's SIOCOUTQ: unsent and unacknowledged bytes),
            asyncio's alone where the system does not say. Counted in asyncio's alone, a
            client on a slow link that kept reading was cut: the kernel takes more from
            asyncio only once a third of its queue is acknowledged, 280 kB of 840 kB,
            which at 10 kB/s took longer than the bound."""
            left = self.transport.get_write_buffer_size()
            sock = self.transport.get_extra_info("socket")
            if _SIOCOUTQ is not None and sock is not None:
                try:
                    left += struct.unpack("i", fcntl.ioctl(sock.fileno(), _SIOCOUTQ, bytes(4)))[0]
                except OSError:
                    pass
            return left

        def _check_writing(self) -> None:
            """Cut the connection if its client has taken no byte for ``write_s``; look
            again a tenth of that later otherwise (a slow client is not cut)."""
            left = self._unacknowledged()
            if left < self.write_left:
                self.write_taken = self.loop.time()
            elif self.loop.time() - self.write_taken >= write_limit_s:
                self.write_clock = None
                self.transport.abort()
                return
            self.write_left = left
            self.write_clock = self.loop.call_later(write_limit_s / 10, self._check_writing)

    return BoundedHTTP


def _log_to_stderr() -> None:
    """uvicorn's messages (a port taken since it was checked, a bad request) on standard
    error as uvicorn's own logging config says them, without that config: uvicorn
    applies it with ``logging.config.dictConfig``, which closes every log handler of
    the process, not only uvicorn's. absl's (imported with OpenSpiel's MCTS) then closed
    the stream it was made with unless it was still ``sys.stderr``: a ``serve`` run in a
    process that had played openspiel:mcts under another standard error (a test
    session's capture) closed that one."""
    from uvicorn.logging import DefaultFormatter

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(DefaultFormatter("%(levelprefix)s %(message)s"))
    logger = logging.getLogger("uvicorn")
    logger.handlers = [handler]
    logger.propagate = False


def _server(uvicorn, config):
    """uvicorn's server, keeping Ctrl-C ignored if the command was started with it
    ignored (in the background of a script, under ``nohup``), as every other command
    does: uvicorn took SIGINT over regardless and shut down on it."""
    ignored = signal.getsignal(signal.SIGINT) is signal.SIG_IGN

    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:
            if not (ignored and sig == signal.SIGINT):
                super().handle_exit(sig, frame)

    return Server(config)


def _hang_up_stops(server) -> None:
    """SIGHUP (a closed terminal) shuts ``server`` down as uvicorn does on SIGTERM, then
    reaches the command line's own handler (said "hung up", exit 129). uvicorn handles
    SIGINT and SIGTERM only, and the command line's handler raised inside its event
    loop (two tracebacks). Under ``nohup`` a hang-up stays ignored."""
    ours = signal.getsignal(signal.SIGHUP)
    if not callable(ours):
        return

    def hang_up(signum, frame) -> None:
        signal.signal(signal.SIGHUP, ours)  # uvicorn raises it again once it has shut down
        server.handle_exit(signum, frame)

    signal.signal(signal.SIGHUP, hang_up)
