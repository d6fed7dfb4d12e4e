"""``pokersquares train``."""

import json
import subprocess
import sys

from pokersquares.evaluators.patterns import read_utilities


def cli(*args):
    return subprocess.run([sys.executable, "-m", "pokersquares", *args], capture_output=True, text=True)


def test_train_writes_a_table_the_player_loads(tmp_path):
    out = tmp_path / "british.json"
    r = cli("train", "--player", "og", "--system", "british", "--prep-time", "1.5", "--out", str(out), "--json")
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    # At least one whole round of learning (5,000 training and 5,000 evaluation games,
    # about 0.1 s on one core), not merely some games.
    assert summary["system"] == "British" and summary["seconds"] < 1.5 and summary["games"] >= 10_000
    assert read_utilities(out)["points"] == [0, 1, 3, 6, 12, 5, 10, 16, 30, 30]
    r = cli("play", "--player", f"og:load={out}", "--system", "british", "--prep-time", "0",
            "--db", str(tmp_path / "r.sqlite"), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["penalty"] is None


def test_train_rejects_what_it_cannot_do(tmp_path):
    r = cli("train", "--player", "random", "--system", "american", "--out", str(tmp_path / "x.json"))
    assert r.returncode == 2 and "nothing to save" in r.stderr
    r = cli("train", "--player", "og", "--system", "american", "--out", str(tmp_path / "no" / "x.json"))
    assert r.returncode == 2 and "does not exist" in r.stderr
