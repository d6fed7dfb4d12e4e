"""Fixtures of the command-line tests."""

import signal
import sys
import warnings

import pytest

from pokersquares.cli import main


@pytest.fixture
def cli(monkeypatch, capsys):
    """Run the command line in this process: (exit code, stdout, stderr)."""
    def run(*args):
        monkeypatch.setattr(sys, "argv", ["pokersquares", *map(str, args)])
        term, show = signal.getsignal(signal.SIGTERM), warnings.showwarning
        try:
            with pytest.raises(SystemExit) as e:
                main()
        finally:
            signal.signal(signal.SIGTERM, term)
            warnings.showwarning = show
        out, err = capsys.readouterr()
        return e.value.code, out, err
    return run
