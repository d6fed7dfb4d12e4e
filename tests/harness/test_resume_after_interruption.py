"""A run resumed from the result store, as its user sees it: the progress line counts the
games the store already holds (read back, not played again) among the games done, and its
running mean is the run's, not only the mean of the games played since the resume."""

from __future__ import annotations

import re
import statistics
import subprocess
import sys

from pokersquares.harness.store import ResultStore

FAST = ["--prep-time", "0", "--time-per-game", "0.2", "--workers", "1"]


def last_bar(err: str, desc: str) -> tuple[int, int, float]:
    """Games done, games in all and the running mean of the last progress line of ``desc``."""
    lines = [line for line in re.split(r"[\r\n]", err) if line.startswith(desc) and "game" in line and "|" in line]
    assert lines, err
    done, total = map(int, re.search(r"\| *(\d+)/(\d+) ", lines[-1]).groups())
    mean = re.search(r"mean=(-?[\d.]+)", lines[-1])
    return done, total, float(mean.group(1)) if mean else float("nan")


def store_mean(db, run_id: int, games: int) -> float:
    with ResultStore(db, readonly=True) as store:
        return statistics.fmean(g.score for g in store.games(run_id) if g.game_index < games)


def test_a_resumed_runs_progress_counts_the_games_the_store_holds(cli, tmp_path):
    db = tmp_path / "r.sqlite"
    run = ["run", "-p", "random", "--secret", "s", "--db", db, *FAST]
    code, _, err = cli(*run, "--games", "8", "-q")
    assert code == 0, err
    code, _, err = cli(*run, "--games", "12")  # 8 held, 4 played: the line ends at 12 of 12, not 4 of 12
    assert code == 0, err
    assert last_bar(err, "random on American")[:2] == (12, 12)
    assert abs(last_bar(err, "random on American")[2] - store_mean(db, 1, 12)) < 0.006
    code, _, err = cli(*run, "--games", "12")  # all held: not "0/12, mean=0.00"
    assert code == 0, err
    done, total, mean = last_bar(err, "random on American")
    assert (done, total) == (12, 12)
    assert abs(mean - store_mean(db, 1, 12)) < 0.006


def test_a_resumed_sweeps_progress_counts_the_games_the_store_holds(cli, tmp_path):
    db = tmp_path / "s.sqlite"
    sweep = ["sweep", "-p", "greedy", "--param", "flush_weight=0,1", "--db", db, *FAST]
    code, _, err = cli(*sweep, "--games", "5", "-q")
    assert code == 0, err
    code, _, err = cli(*sweep, "--games", "7")
    assert code == 0, err
    assert last_bar(err, "sweep greedy")[:2] == (14, 14)


def test_a_resumed_experiments_progress_counts_the_games_the_store_holds(tmp_path):
    db = tmp_path / "m.sqlite"
    matrix = [sys.executable, "-m", "pokersquares", "experiment", "matrix", "--evaluators", "possibility",
              "--searches", "greedy", "--systems", "american", "--db", str(db), "--plot", str(tmp_path / "m.png"),
              "--prep-time", "0", "--time-per-game", "0.2", "--workers", "1"]
    first = subprocess.run([*matrix, "--games", "4", "-q"], capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr
    again = subprocess.run([*matrix, "--games", "6"], capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert last_bar(again.stderr, "matrix")[:2] == (6, 6)


def test_a_resumed_tournaments_progress_counts_the_games_the_store_holds(cli, tmp_path):
    db = tmp_path / "t.sqlite"
    tournament = ["tournament", "--players", "random,greedy", "--systems", "american,british", "--secret", "s",
                  "--db", db, *FAST]
    code, _, err = cli(*tournament, "--games", "3", "-q")
    assert code == 0, err
    code, _, err = cli(*tournament, "--games", "3")  # every game held: not "0/12, mean=0.00"
    assert code == 0, err
    done, total, mean = last_bar(err, "tournament")
    assert (done, total) == (12, 12)
    with ResultStore(db, readonly=True) as store:
        assert abs(mean - statistics.fmean(g.score for r in store.runs() for g in store.games(r.run_id))) < 0.006


def _games_by_run(db):
    with ResultStore(db, readonly=True) as store:
        return ({r.run_id: [(g.seed, g.score, g.placements) for g in store.games(r.run_id)] for r in store.runs()},
                [t["tournament_id"] for t in store.tournaments()])


def test_a_tournament_given_more_games_goes_on_from_those_it_holds(cli, tmp_path):
    """As a run does: `--games 3` then `--games 5` is one tournament whose runs grow by two
    games each (was: a second tournament, every game played again), and `--games 2` reads
    the first two of each run."""
    db = tmp_path / "t.sqlite"
    tournament = ["tournament", "--players", "random,greedy", "--systems", "american,british", "--secret", "s",
                  "--db", db, "-q", "--json", *FAST]
    assert cli(*tournament, "--games", "3")[0] == 0
    before, tids = _games_by_run(db)
    assert tids == [1] and sorted(len(g) for g in before.values()) == [3] * 4
    code, out, err = cli(*tournament, "--games", "5")
    assert code == 0, err
    after, tids = _games_by_run(db)
    assert tids == [1] and set(after) == set(before)  # the same tournament and runs
    assert all(after[r][:3] == before[r] for r in before) and sorted(len(g) for g in after.values()) == [5] * 4
    code, out, err = cli(*tournament, "--games", "2")
    assert code == 0, err
    assert _games_by_run(db) == (after, [1])  # nothing played, nothing new
    assert '"games": 2' in out


def test_a_tournament_recorded_before_the_key_left_out_the_game_count_is_found(tmp_path):
    """A store written by earlier code keyed its tournaments with their game count: the
    same tournament with more games goes on in it (the one of most games), rekeyed."""
    from pokersquares.harness import store as store_module
    from pokersquares.points import AMERICAN, BRITISH

    with ResultStore(tmp_path / "old.sqlite") as store:
        players, systems = ["greedy", "random"], [AMERICAN, BRITISH]
        sys_json = [s.to_json() for s in systems]
        for tid, games in ((1, 10), (2, 20)):
            store.conn.execute("INSERT INTO tournaments VALUES (?,?,?,?,?,?,?)", (
                tid, store_module._key(players, sys_json, games, 0, 1.0, 0.0), store_module.json.dumps(players),
                store_module.json.dumps(sys_json), games, 0, 0.0))
        assert store.open_tournament(players, systems, 30, 0, 1.0, 0.0) == 2
        assert store.open_tournament(players, systems, 5, 0, 1.0, 0.0) == 2
        assert store.tournament(2)["games"] == 30
        assert store.open_tournament(players, systems, 30, 0, 2.0, 0.0) == 3  # another time a game: another
