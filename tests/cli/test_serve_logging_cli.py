"""``pokersquares serve`` run in a process that has other log handlers (a test session,
a script that played openspiel:mcts first) leaves them and their streams as they were,
and still says uvicorn's warnings on standard error."""

from __future__ import annotations

import io
import logging
import socket

import pytest


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_leaves_the_stream_of_absls_log_handler_open(cli, served_apps):
    """absl's handler (imported with OpenSpiel's MCTS) writes to the standard error of its
    import, in a test session the session's capture; the serve test that followed replaced
    sys.stderr (capsys). uvicorn's logging config closed every handler of the process and
    absl's closed that stream: the serve test failed and pytest lost its standard error."""
    absl_logging = pytest.importorskip("absl.logging")
    earlier_stderr = io.StringIO()
    handler = absl_logging.PythonHandler(earlier_stderr)
    code, out, err = cli("serve", "--warm", "", "--port", _free_port(), "--no-record")
    assert code == 0 and len(served_apps) == 1, err
    assert not earlier_stderr.closed and handler.stream is earlier_stderr


def test_serve_says_uvicorns_warnings_on_standard_error(cli, capsys, served_apps):
    code, out, err = cli("serve", "--warm", "", "--port", _free_port(), "--no-record")
    assert code == 0 and len(served_apps) == 1, err
    logging.getLogger("uvicorn.error").warning("Invalid HTTP request received.")
    logging.getLogger("uvicorn.error").info("Started server process")  # --log-level warning
    out, err = capsys.readouterr()
    assert (out, err) == ("", "WARNING:  Invalid HTTP request received.\n")
