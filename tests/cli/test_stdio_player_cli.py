"""``pokersquares stdio-player``: what its help says of the protocol is what it speaks."""

import subprocess
import sys


def test_stdio_player_help_says_the_greeting_it_prints_first(cli):
    # The help listed the commands and their answers, not the "ready NAME" line that comes
    # before any of them: a client waiting for an answer to its first command read that.
    code, out, err = cli("stdio-player", "--help")
    assert code == 0, err
    text = " ".join(out.split())
    assert '"ready NAME"' in text and '"error WHY"' in text
    r = subprocess.run([sys.executable, "-m", "pokersquares", "stdio-player", "--player", "random"],
                       input="init\nquit\n", capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["ready random", "ok"]
    r = subprocess.run([sys.executable, "-m", "pokersquares", "stdio-player", "--player", "nobody"],
                       input="", capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stdout.startswith("error unknown player 'nobody'")
