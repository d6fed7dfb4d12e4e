"""Connections opened to `pokersquares serve` and never used: how many files the server
holds with them, and after its keep-alive, as JSON.

A browser gone off the network mid-connect, or a port scanner, leaves such connections;
uvicorn closes an idle one only after a first response, so the server held each for as
long as it ran, until at the limit of open files it stopped accepting. `serve` closes
them after its keep-alive (``cli/web.py``, ``KEEP_ALIVE_S``)::

    python benchmarks/web_idle_connections.py --connections 300
    {"connections": 300, "files_before": 14, "files_with_them": 314, "files_after": 8, "waited_s": 35.0}
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from served import free_port, serve  # this folder's: the server stopped with the script  # noqa: E402


def open_files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=300, help="Connections to open and leave silent.")
    parser.add_argument("--wait", type=float, default=35.0, help="Seconds to wait before counting again "
                        "(the server's keep-alive is 30 s).")
    args = parser.parse_args(argv)
    if not 1 <= args.connections <= 900:  # the script's own files count against its limit too
        parser.error("--connections must be from 1 to 900")
    if not 0 <= args.wait <= 600:
        parser.error("--wait must be from 0 to 600 seconds")
    port = free_port()
    with tempfile.TemporaryDirectory() as folder, \
            serve([sys.executable, "-m", "pokersquares", "serve", "--port", str(port), "--warm", "", "--no-record",
                   "--db", str(Path(folder) / "r.sqlite")],
                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as server:
        deadline = time.monotonic() + 600
        while True:  # until it accepts (it answers before its agents are loaded)
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    sys.exit("the server did not start")
                time.sleep(0.2)
        time.sleep(1.0)  # the probe's connection closed
        before = open_files(server.pid)
        silent = [socket.create_connection(("127.0.0.1", port)) for _ in range(args.connections)]
        try:
            time.sleep(1.0)
            held = open_files(server.pid)
            time.sleep(args.wait)
            after = open_files(server.pid)
        finally:
            for s in silent:
                s.close()
    print(json.dumps({"connections": args.connections, "files_before": before, "files_with_them": held,
                      "files_after": after, "waited_s": args.wait}))


if __name__ == "__main__":
    main()
