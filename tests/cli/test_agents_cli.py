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


def test_train_rejects_what_it_cannot_do(tmp_path, cli_here):
    # (In this process: both are refused before any learning, og's parallel kernels unrun.)
    r = cli_here("train", "--player", "random", "--system", "american", "--out", str(tmp_path / "x.json"))
    assert r.returncode == 2 and "nothing to save" in r.stderr
    r = cli_here("train", "--player", "og", "--system", "american", "--out", str(tmp_path / "no" / "x.json"))
    assert r.returncode == 2 and "does not exist" in r.stderr


def test_train_refuses_a_player_that_learns_nothing_to_save_before_learning(cli, tmp_path):
    # tiger's evaluator (the possibility heuristic) has only Evaluator.save, which raises:
    # said at once, not after the whole --prep-time was spent learning.
    import time
    started = time.monotonic()
    for player in ("tiger", "hybrid:evaluator=possibility"):
        code, out, err = cli("train", "--player", player, "--system", "american", "--prep-time", "30",
                             "--out", tmp_path / "x.json", "--json")
        assert code == 2 and out == "" and "nothing to save" in err and err.count("\n") == 1
    assert time.monotonic() - started < 20
    assert not (tmp_path / "x.json").exists()


def test_train_json_stays_clean_of_a_learners_prints(tmp_path, cli_here, monkeypatch):
    # A module:Class learner that prints while it learns and saves: its prints go to
    # stderr, and stdout holds only the JSON summary.
    (tmp_path / "printer.py").write_text(
        "import json\n"
        "from pokersquares.harness import BasePlayer\n"
        "class Printer(BasePlayer):\n"
        "    name = 'printer'\n"
        "    def prepare(self, budget_s):\n"
        "        print('learning...')\n"
        "    def choose(self, grid, card, seconds_left):\n"
        "        return int((grid == -1).argmax())\n"
        "    def save(self, path):\n"
        "        print('saving')\n"
        "        open(path, 'w').write(json.dumps({'t': 1}))\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "o.json"
    r = cli_here("train", "--player", "printer:Printer", "--system", "american", "--prep-time", "0", "--out", str(out),
                 "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["out"] == str(out)
    assert "learning..." in r.stderr and "saving" in r.stderr
    assert json.loads(out.read_text()) == {"t": 1}


def test_train_replaces_the_out_file_whole_even_with_a_users_save(cli, tmp_path, monkeypatch):
    """A user's save() that failed half-way used to leave its half-written file over the
    good one at --out (and a traceback); one that wrote nothing left an empty file."""
    (tmp_path / "halfsaver.py").write_text(
        "from pokersquares.harness import BasePlayer\n"
        "class Half(BasePlayer):\n"
        "    def choose(self, grid, card, seconds_left):\n"
        "        return int((grid == -1).argmax())\n"
        "    def save(self, path):\n"
        "        with open(path, 'w') as f:\n"
        "            f.write('{\"half\": ')\n"
        "            raise RuntimeError('disk on fire')\n"
        "class Elsewhere(Half):\n"
        "    def save(self, path):\n"
        "        pass\n"
        "class Whole(Half):\n"
        "    def save(self, path):\n"
        "        open(path, 'w').write('{\"whole\": 1}')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "learned.json"
    out.write_text('{"good": 1}')
    for player, words in (("halfsaver:Half", "could not save what it learned: RuntimeError: disk on fire"),
                          ("halfsaver:Elsewhere", "wrote nothing at the path it was given")):
        code, stdout, err = cli("train", "--player", player, "--system", "american", "--prep-time", "0",
                                "--out", out, "--json")
        # One line of its own, after any progress line (on a busy machine the player's
        # warm-up is slow enough to get "compiling its kernels").
        said = [line for line in err.splitlines() if not line.startswith(f"training {player} on American: ")]
        assert code == 2 and stdout == "" and len(said) == 1 and words in said[0], err
        assert out.read_text() == '{"good": 1}'
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no temporary left
    code, stdout, err = cli("train", "--player", "halfsaver:Whole", "--system", "american", "--prep-time", "0",
                            "--out", out, "--json")
    assert code == 0 and json.loads(stdout)["out"] == str(out) and out.read_text() == '{"whole": 1}'


def test_train_of_pretrained_where_it_has_a_prior_asks_for_the_npz_it_writes(cli, tmp_path):
    """``pretrained`` on American at 0 s plays its prior (a TD evaluator, ``.npz``): the
    file's kind was checked against the small-budget evaluator's (``.json``), and an
    ``.npz`` archive was written under the ``.json`` name."""
    import zipfile

    code, out, err = cli("train", "--player", "pretrained", "--system", "american", "--prep-time", "0",
                         "--out", tmp_path / "p.json")
    assert code == 2 and out == "" and "saves a .npz file" in err and err.count("\n") == 1, err
    assert list(tmp_path.iterdir()) == []
    code, out, err = cli("train", "--player", "pretrained", "--system", "american", "--prep-time", "0",
                         "--out", tmp_path / "p.npz", "--json")
    assert code in (0, None), err
    assert zipfile.is_zipfile(tmp_path / "p.npz")


def test_train_refuses_zero_seconds_for_a_learner_of_its_budget_before_learning(cli, tmp_path, monkeypatch):
    """A learner that learns for as long as its budget allows learns nothing in 0 s: the
    file held an untrained table (beemo: 0 games), which ``load=`` then played at a
    random player's strength. A learner of fixed work (``games=N``) still trains at 0 s."""
    import pokersquares.cli.agents as agents

    made = agents.make_player

    def no_learning(spec):
        p = made(spec)
        if "games=" not in spec:
            def learned(*args, **kwargs):
                raise AssertionError("learning began")
            p.set_point_system = p.warm_up = learned
        return p

    monkeypatch.setattr(agents, "make_player", no_learning)
    for player, name in (("beemo", "b.json"), ("gettysburg", "g.npz"), ("champion:evaluator=td", "t.npz")):
        code, out, err = cli("train", "--player", player, "--system", "american", "--prep-time", "0",
                             "--out", tmp_path / name)
        assert code == 2 and err.startswith("error: --prep-time 0:") and err.count("\n") == 1, err
    assert list(tmp_path.iterdir()) == []
    code, out, err = cli("train", "--player", "gettysburg:games=200,threads=1", "--system", "american",
                         "--prep-time", "0", "--out", tmp_path / "g.npz", "--json")
    assert code in (0, None) and json.loads(out)["games_learned"] == 200, err


def test_train_says_when_the_table_it_saves_lost_the_check_against_greedy(cli, tmp_path, monkeypatch):
    """The guard found the learned table worse than the greedy rule: the trained player
    would play the rule, but ``load=FILE`` plays the table. It was said only on the
    progress line; now a warning, and the check is in the summary."""
    from pokersquares.players import greedy_guard

    lost = greedy_guard.GuardReport(games=250, learned_mean=3.2, greedy_mean=3.4, seconds=0.03, diff_se=0.06)
    monkeypatch.setattr(greedy_guard, "check_against_greedy", lambda *args, **kwargs: lost)
    code, out, err = cli("train", "--player", "og:learn_threads=1", "--system", "single:flush", "--prep-time", "0.5",
                         "--out", tmp_path / "f.json", "--json")
    assert code in (0, None), err
    assert json.loads(out)["checked_against_greedy"]["plays_greedy_rule"] is True
    assert "warning: the table saved in" in err and "scored below the greedy rule" in err, err
