"""`pokersquares serve` started for a web benchmark and stopped with it.

Imported by the ``web_*.py`` benchmarks (their folder is on
``sys.path`` when they run as scripts); not a benchmark itself.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import sys
import time
from typing import Iterator


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (for the server to take)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(command: list[str], **popen) -> Iterator[subprocess.Popen]:
    """The server ``command`` starts, stopped when the block ends. SIGTERM ends the script
    through the block's end (as Ctrl-C does), which stops the server: by default it ended
    the script alone, the server left running. One that comes while the server is being
    started (forked, not yet known here) is held until it is known."""
    server, held = None, []

    def on_term(signum, frame) -> None:
        if server is None:
            held.append(signum)
        else:
            sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    server = subprocess.Popen(command, **popen)
    try:
        if held:
            sys.exit(128 + held[0])
        yield server
    finally:
        if server.poll() is None:
            server.terminate()
        server.wait(10)


def wait_for_agents(client, within_s: float = 600.0) -> None:
    """Until the server (an ``httpx.Client`` on it) lists its agents: it answers once
    started, and lists them once their kernels are loaded. Exits the script if it has
    not within ``within_s``."""
    import httpx

    deadline = time.monotonic() + within_s
    while True:
        try:
            if client.get("/api/config").json()["agents"]:
                return
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            sys.exit(f"the server did not list its agents within {within_s:g} s")
        time.sleep(0.2)


def check_agent(parser, agent: str) -> None:
    """``parser``'s one-line error unless ``agent`` is one of the web app's agents: checked
    before the server starts (a hint of an unknown agent never succeeds, so its wait would
    never end)."""
    from pokersquares.web.agents import registered_agents

    agents = registered_agents()
    if agent not in agents:
        parser.error(f"unknown agent {agent!r}; the web app's agents: {', '.join(agents)}")
