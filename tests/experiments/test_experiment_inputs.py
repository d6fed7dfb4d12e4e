"""Inputs of ``experiment`` and ``sweep`` met at their limits: each refused in one line
naming its option before the store is made, or its figure made from the right games."""

import json
from pathlib import Path

import pytest

from tests.cli_words import experiment_words

from pokersquares.experiments import beemo
from pokersquares.experiments.sweep import SweepError, parse_param
from pokersquares.harness.store import GameRecord, ResultStore

R = ("--time-per-game", "0.2", "-q")
SMALL = {
    "tiger": ("tiger", "-n", "1", "--prep-time", "0", *R),
    "beemo": ("beemo", "-n", "2", "--prep-time", "0.35", "--systems", "american", *R),
    "gettysburg": ("gettysburg", "--learn-games", "50", "--games", "2", "--search-games", "2", "--systems",
                   "american", "--variants", "eps0=0.5", "--searches", "greedy", "--search-systems", "american", *R),
    "gettysburg part": ("gettysburg", *R),  # no option of either part: each case gives one
    "matrix": ("matrix", "-n", "2", "--evaluators", "narl", "--searches", "greedy", "--systems", "american",
               "--prep-time", "0", *R),
}
HUGE = "100000000"


@pytest.mark.parametrize("command, args, says", [
    # an empty --rows was taken for all twelve rows
    ("tiger", ("--parts", "table3", "--rows", ","), "--rows names no row"),
    # options of a part not run, or of a row not played, were taken and ignored
    ("tiger", ("--parts", "table3", "--rows", "1", "--cp", "5"), "--cp goes with the C_p sweep"),
    ("tiger", ("--parts", "squash", "--plot", "{tmp}/cp.png"), "--plot goes with the C_p sweep"),
    ("beemo", ("--configs", "feedback", "--mc-games", "5"), "--mc-games"),
    ("beemo", ("--configs", "feedback", "--playouts", "5"), "--playouts goes with the flat MC row"),
    ("beemo", ("--configs", "beemo", "--mc-games", "0", "--unpaired"), "--unpaired goes with the flat MC row"),
    ("beemo", ("--configs", "feedback", "--seconds-per-move", "0.01"), "--seconds-per-move goes with"),
    ("gettysburg part", ("--part", "search", "--variants", "eps0=0.1"), "--variants is the learning part's"),
    ("gettysburg part", ("--part", "search", "--games", "5"), "--games is the learning part's"),
    ("gettysburg part", ("--part", "learning", "--evaluator", "eps0=0.1"), "--evaluator is the search part's"),
    ("gettysburg part", ("--part", "learning", "--search-games", "5"), "--search-games is the search part's"),
    ("gettysburg", ("--samples", "3"), "--samples draws systems of the random types"),
    # a count, a seed or seconds out of range said without the option it came from
    ("matrix", ("-n", HUGE), "--games"),
    ("matrix", ("--seed", str(2 ** 63 - 1)), "--seed"),
    ("matrix", ("--time-per-game", "1e7"), "'--time-per-game'"),
    ("matrix", ("--prep-time", "1e7"), "'--prep-time'"),
    ("tiger", ("--parts", "table3", "--rows", "1", "-n", HUGE), "--games"),
    ("tiger", ("--parts", "table3", "--rows", "1", "--time-per-game", "1e7"), "--time-per-game must be at most"),
    ("tiger", ("--parts", "table3", "--rows", "1", "--prep-time", "1e7"), "'--prep-time'"),
    ("beemo", ("--configs", "beemo", "--mc-games", HUGE), "--mc-games"),
    ("beemo", ("--configs", "beemo", "-n", "1", "--mc-games", "2", "--seed", str(2 ** 63 - 1)), "--mc-games 2"),
    ("beemo", ("--configs", "feedback", "--mc-games", "0", "-n", HUGE), "--games"),
    ("beemo", ("--configs", "feedback", "--mc-games", "0", "--time-per-game", "1e7"), "'--time-per-game'"),
])
def test_options_unused_or_out_of_range_are_one_line_naming_them_before_anything_runs(cli, tmp_path: Path, command,
                                                                                       args, says):
    db = tmp_path / "x.sqlite"
    args = [a.format(tmp=tmp_path) for a in args]
    plot = ("--plot-dir", tmp_path) if command.startswith("gettysburg") else (
        ("--plot", tmp_path / "p.png") if command == "matrix" else ())  # tiger's cases run no C_p sweep
    code, out, err = cli("experiment", *experiment_words(SMALL[command], *plot, *args), "--db", db)
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1, err
    assert says in err, err
    assert not db.exists()


@pytest.mark.parametrize("command, args, says", [
    ("beemo", ("--configs", "feedback", "--mc-games", "0", "--prep-time", "0.1"), "--prep-time 0.1 is too little"),
    # 0.3 s of preparation is 0.185 s of learning once the hand-over is kept back: the rule too.
    ("beemo", ("--configs", "feedback", "--mc-games", "0", "--prep-time", "0.3"), "--prep-time 0.3 is too little"),
    ("gettysburg", ("--learn-games", "0", "--learn-seconds", "0.3"), "--learn-seconds 0.3 is too little"),
    ("beemo", ("--configs", "beemo", "--prep-time", "0"), "--prep-time 0 is too little"),
    ("gettysburg", ("--learn-games", "0", "--learn-seconds", "0.1"), "--learn-seconds 0.1 is too little"),
])
def test_a_learning_budget_too_small_to_learn_is_one_line_before_anything_runs(cli, tmp_path: Path, command, args,
                                                                              says):
    """Below 0.2 s of learning (0.35 s of preparation, the hand-over kept back) a learner
    plays the greedy rule (players.greedy_guard): every learning row printed the rule's
    same figure under its configuration's name, beside the paper's."""
    db = tmp_path / "x.sqlite"
    plot = ("--plot-dir", tmp_path) if command == "gettysburg" else ()
    code, out, err = cli("experiment", *experiment_words(SMALL[command], *plot, *args), "--db", db)
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1, err
    assert says in err and "greedy rule" in err, err
    assert not db.exists()


def test_a_loaded_table_needs_no_learning_budget():
    rows = beemo.beemo_rows(prep_time=0.0, games=2, mc_games=2, playouts=2, systems=["american"], configs=["beemo"],
                            load="/tables/american.json")
    assert [r.run.player for r in rows] == ["og:load=/tables/american.json"] * 2 + [
        "beemo:playouts=2,load=/tables/american.json"]
    assert all(r.run.prep_time == 0.0 for r in rows)


def _store_run(store: ResultStore, run, scores: list[int]) -> int:
    run_id = store.open_run(run.player, run.player.split(":")[0], run.point_system, run.seed, len(scores),
                            run.time_per_game, run.prep_time)
    store.add_games(run_id, [GameRecord(i, run.seed + i, s) for i, s in enumerate(scores)])
    return run_id


def test_og_on_the_same_deals_counts_only_the_og_rows_games(tmp_path: Path):
    """Beside flat MC, OG's mean on the same deals was the OG run's first stored games: with
    --mc-games past --games, games an earlier command (with more --games) had left in the
    run, or (in a fresh store) fewer deals than flat MC played."""
    rows = beemo.beemo_rows(prep_time=0.35, games=2, mc_games=4, playouts=2, systems=["american"],
                            configs=["beemo"], time_per_game=0.2)
    og, flat = (next(r for r in rows if r.label == label) for label in ("og", "flat_mc"))
    with ResultStore(tmp_path / "b.sqlite") as store:
        og.run_id = _store_run(store, og.run, [10, 20, 30, 40, 50, 60])  # an earlier command's -n 6
        og.games = 2
        flat.run_id, flat.games = _store_run(store, flat.run, [1, 2, 3, 4]), 4
        beemo.add_og_on_same_deals(rows, store)
        assert flat.details["og_on_same_deals"] is None  # this OG row played 2 of flat MC's 4 deals
        # The OG row of a command with -n 6 played them all: their mean.
        rows6 = beemo.beemo_rows(prep_time=0.35, games=6, mc_games=4, playouts=2, systems=["american"],
                                 configs=["beemo"], time_per_game=0.2)
        og6, flat6 = (next(r for r in rows6 if r.label == label) for label in ("og", "flat_mc"))
        og6.run_id, og6.games, flat6.run_id, flat6.games = og.run_id, 6, flat.run_id, 4
        beemo.add_og_on_same_deals(rows6, store)
        assert flat6.details["og_on_same_deals"] == 25.0


@pytest.mark.parametrize("text, says", [
    ("a=1..1/3", "not distinct"),  # one run, played once, shown three times
    ("a=1..1.000001/3", "not distinct"),  # 1.0, 1.0000005 and 1.000001 written to 6 digits
    ("a=0...1/3", "three dots"),  # read as 0 to .1
])
def test_a_range_whose_values_are_not_distinct_or_unclear_is_refused(text, says):
    with pytest.raises(SweepError, match=says):
        parse_param(text)


def test_a_sweep_of_one_game_a_setting_says_no_standard_error(cli, tmp_path: Path):
    """One game has no standard error: it was printed as 0.00 (no uncertainty at all)."""
    args = ("sweep", "--player", "greedy", "--param", "flush_weight=0,1", "--games", "1", "--prep-time", "0",
            "--time-per-game", "0.2", "-q", "--workers", "1", "--db", tmp_path / "s.sqlite")
    code, out, err = cli(*args, "--json")
    assert code == 0, err

    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")
    rows = json.loads(out, parse_constant=refuse)
    assert [(r["games"], r["stderr"], r["stdev"]) for r in rows] == [(1, None, None)] * 2
    code, out, err = cli(*args, "--plot", tmp_path / "s.png")
    table = out.splitlines()
    assert code == 0 and table[0].split()[2] == "stderr" and "± -," in table[-1], out
    assert [line.split()[2] for line in table[1:-1]] == ["-", "-"], out
    assert (tmp_path / "s.png").read_bytes()[:4] == b"\x89PNG"
