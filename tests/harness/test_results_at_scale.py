"""``results``, ``compare`` and ``review`` on stores of the size and shape users make:
what they read (a run's games, not the store's), and what they say about unusual runs."""

import json

import pytest

from pokersquares.cards import deal
from pokersquares.harness.store import GameRecord, ResultStore
from pokersquares.points import AMERICAN, BRITISH


def full(seed):
    """A finished game of ``seed``'s deal, its cards placed row by row."""
    return [(int(c), k // 5, k % 5) for k, c in enumerate(deal(seed)[:25])]


def _store(path, runs=6, games=20):
    """``runs`` runs, American and British in turn, of ``games`` finished games each."""
    with ResultStore(path) as store:
        for r in range(runs):
            run = store.open_run(f"player{r}", "greedy", AMERICAN if r % 2 == 0 else BRITISH, 0, games, 1.0, 0.0)
            store.add_games(run, [GameRecord(i, i, 50 + (i * 7 + r) % 60, full(i), 0.1) for i in range(games)])
    return path


@pytest.fixture
def counted(monkeypatch):
    """The run ids whose games are read: every game of the run (``ResultStore.iter_games``
    without seeds, which ``games`` reads through) or each game's seed and score
    (``seed_scores``). A read of chosen seeds is not counted."""
    asked = []
    iter_games, seed_scores = ResultStore.iter_games, ResultStore.seed_scores

    def every_game(self, run_id, seeds=None):
        if seeds is None:
            asked.append(run_id)
        return iter_games(self, run_id, seeds)

    def scores(self, run_id):
        asked.append(run_id)
        return seed_scores(self, run_id)

    monkeypatch.setattr(ResultStore, "iter_games", every_game)
    monkeypatch.setattr(ResultStore, "seed_scores", scores)
    return asked


def test_the_listing_reads_no_game_of_a_store_without_optima(cli, tmp_path, counted):
    """The regret lines read the games of the runs whose deals have stored optima; they
    read every game of the store (7 s of a 10 s listing of 100,000 games) to find none."""
    db = _store(tmp_path / "r.sqlite")
    for args in ([], ["--json"], ["--run", "3"]):
        code, out, err = cli("results", "--db", db, *args)
        assert code in (0, None), err
    assert counted == []


def test_the_listing_reads_the_games_of_the_runs_with_optima_and_reports_them(cli, tmp_path, counted):
    from pokersquares.optimum import Optimum
    from pokersquares.optimum.store import OptimaStore

    db = _store(tmp_path / "r.sqlite")
    with OptimaStore(db) as optima:
        for seed in range(20):
            optima.put(Optimum(seed, "American", AMERICAN.points, 200, 200, True, list(deal(seed)[:25]), 0.1, 200), 1)
    code, out, err = cli("results", "--db", db, "--json")
    assert code in (0, None), err
    got = {r["run_id"]: r["optimum"] for r in json.loads(out)["runs"]}
    assert [k for k, v in got.items() if v is not None] == [1, 3, 5]  # the American runs
    assert got[1]["deals"] == 20 and got[1]["regret"] == pytest.approx(200 - got[1]["mean_score"])
    assert sorted(counted) == [1, 3, 5]


@pytest.mark.parametrize("kind", ["csv", "json"])
@pytest.mark.parametrize("run", [None, 2])
def test_an_export_is_streamed_byte_for_byte_as_the_store_exports_it(cli, tmp_path, monkeypatch, kind, run):
    """The export was built whole in memory (every row, then the text, then its bytes:
    440 MB for 100,000 games); it is written a game at a time, byte for byte as before."""
    db = _store(tmp_path / "r.sqlite", runs=4, games=5)
    with ResultStore(db, readonly=True) as store:
        ids = None if run is None else [run]
        expected = store.export_csv(ids) if kind == "csv" else json.dumps(store.export_rows(ids))

    def whole(*args, **kwargs):
        raise AssertionError("the whole store, or a whole run, held in memory at once")

    monkeypatch.setattr(ResultStore, "export_rows", whole)
    monkeypatch.setattr(ResultStore, "export_csv", whole)
    monkeypatch.setattr(ResultStore, "games", whole)  # a run's games as one list
    args = [] if run is None else ["--run", run]
    out_file = tmp_path / f"games.{kind}"
    code, out, err = cli("results", "--db", db, "--export", kind, "--out", out_file, *args)
    assert code in (0, None), err
    assert out_file.read_bytes() == expected.encode()
    code, out, err = cli("results", "--db", db, "--export", kind, *args)
    assert code in (0, None) and out.replace("\r\n", "\n") == expected.replace("\r\n", "\n")


@pytest.mark.parametrize("kind", ["csv", "json"])
def test_an_export_holds_a_bounded_piece_of_a_run_at_a_time(tmp_path, monkeypatch, kind):
    """One run of 100,000 games was exported from a list of all of them (410 MB)."""
    db = _store(tmp_path / "r.sqlite", runs=2, games=60)
    with ResultStore(db, readonly=True) as store:
        expected = store.export_csv() if kind == "csv" else json.dumps(store.export_rows())
        chunks = list(store.export_chunks(kind, size=2000))
        with pytest.raises(Exception, match="no run 9"):
            store.export_chunks(kind, [1, 9])  # at once, before a piece is written
    assert "".join(chunks) == expected
    assert len(chunks) > 20 and max(map(len, chunks)) < 2000 + 1000  # a game's row is under 1000 characters


def test_an_export_of_a_run_without_games_is_an_empty_export(cli, tmp_path):
    db = tmp_path / "r.sqlite"
    with ResultStore(db) as store:
        store.open_run("greedy", "greedy", AMERICAN, 0, 5, 1.0, 0.0)
    assert json.loads(cli("results", "--db", db, "--export", "json", "--run", 1)[1]) == []
    assert cli("results", "--db", db, "--export", "csv")[1].splitlines() == ["run_id,tournament_id,player,player_name,system,"
                                                                            "points,game_index,seed,score,decision_s,"
                                                                            "penalty,fallback_moves,placements,secret,"
                                                                            "version,time_per_game,prep_time"]


def test_reviewing_one_game_reads_that_game_not_the_run(cli, tmp_path, counted):
    """``review --game S`` read every game of the run to find one (8 s and 220 MB more
    for a run of 100,000 games, and as long before refusing a seed the run never played)."""
    db = _store(tmp_path / "r.sqlite", runs=1, games=200)
    code, out, err = cli("review", db, "--run", 1, "--game", 7, "--game", 3, "--coach", "pretrained",
                         "--prep-time", 0, "--json")
    assert code in (0, None), err
    data = json.loads(out)
    assert [g["seed"] for g in data["games"]] == [3, 7]  # in the order played
    with ResultStore(db, readonly=True) as store:
        placed = {g.seed: [(c, r * 5 + k) for c, r, k in g.placements] for g in store.games(1)}
    assert [[(m["card"], m["cell"]) for m in g["moves"]] for g in data["games"]] == [placed[3], placed[7]]
    counted.clear()
    code, out, err = cli("review", db, "--run", 1, "--game", 5000, "--coach", "pretrained", "--prep-time", 0)
    assert code == 2 and "no finished game dealt with seed 5000 (it played seeds 0..199)" in err, err
    assert counted == []
    code, out, err = cli("review", db, "--run", 1, "--game", 2 ** 64, "--coach", "pretrained", "--prep-time", 0)
    assert code == 2 and f"no finished game dealt with seed {2 ** 64} " in err and err.count("\n") == 1, err


def test_reviewing_a_penalised_game_says_why_it_cannot_be_reviewed(cli, tmp_path):
    """A penalised game asked for was said not to exist ("no finished game dealt with
    seed 1 (it played seeds 0..2)", seed 1 among them)."""
    db = tmp_path / "r.sqlite"
    with ResultStore(db) as store:
        run = store.open_run("greedy", "greedy", AMERICAN, 0, 3, 1.0, 0.0)
        store.add_games(run, [GameRecord(0, 0, 90, full(0), 0.1),
                              GameRecord(1, 1, 0, full(1)[:7], 1.2, "timeout: 1.20 s of decision time, limit 1 s"),
                              GameRecord(2, 2, 95, full(2), 0.1)])
        only = store.open_run("broken", "broken", AMERICAN, 0, 2, 1.0, 0.0)
        store.add_games(only, [GameRecord(i, i, 0, [], 0.0, "error: RuntimeError: boom\nmore") for i in range(2)])
        one = store.open_run("broken", "broken", AMERICAN, 5, 1, 1.0, 0.0)
        store.add_games(one, [GameRecord(0, 5, 0, [], 0.0, "error: RuntimeError: boom")])
    code, out, err = cli("review", db, "--run", 1, "--game", 1, "--coach", "pretrained", "--prep-time", 0)
    assert code == 2 and err.count("\n") == 1, err
    assert "run 1's game dealt with seed 1 is not finished: 7 of 25 cards placed, scored the penalty (timeout:" in err
    code, out, err = cli("review", db, "--run", 2, "--coach", "pretrained", "--prep-time", 0)
    assert code == 2 and err.count("\n") == 1, err
    assert "none of its 2 games is finished (seed 0: 0 of 25 cards placed, scored the penalty (error: " \
           "RuntimeError: boom))" in err
    code, out, err = cli("review", db, "--run", 3, "--coach", "pretrained", "--prep-time", 0)
    assert code == 2 and err.count("\n") == 1, err
    assert "run 3 has no finished game to review: its one game is not finished (seed 5: 0 of 25 cards placed" in err


def test_an_incomplete_tournament_is_said_to_be_so_under_its_table(cli, tmp_path):
    """A tournament stopped part way ranked a player of one game (300) above one of three
    (81 a game) on their totals, and said nothing of the games missing."""
    db = tmp_path / "t.sqlite"
    with ResultStore(db) as store:
        t = store.open_tournament(["greedy", "late"], [AMERICAN], 3, 0, 1.0, 0.0)
        run = store.open_run("greedy", "greedy", AMERICAN, 0, 3, 1.0, 0.0, tournament_id=t)
        store.add_games(run, [GameRecord(i, i, 80 + i, full(i), 0.1) for i in range(3)])
        run = store.open_run("late", "late", AMERICAN, 0, 3, 1.0, 0.0, tournament_id=t)
        store.add_games(run, [GameRecord(0, 0, 300, full(0), 0.1)])
    code, out, err = cli("results", "--db", db, "--tournament", t)
    assert code in (0, None), err
    assert "incomplete: 4 of 6 games recorded (late 1 of 3)" in out
    assert json.loads(cli("results", "--db", db, "--tournament", t, "--json")[1])["complete"] is False
    with ResultStore(db) as store:
        store.add_games(run, [GameRecord(i, i, 300, full(i), 0.1) for i in (1, 2)])
    assert "incomplete" not in cli("results", "--db", db, "--tournament", t)[1]


def test_the_listing_keeps_its_columns_for_long_seeds_and_tells_custom_systems_apart(cli, tmp_path):
    """A seed near 2**63 (seeds are Java longs) pushed its row's columns out of line, and
    two systems of ten integers were both listed as "custom"."""
    from pokersquares.points import PointSystem

    db = tmp_path / "r.sqlite"
    with ResultStore(db) as store:
        for seed, system in ((2 ** 63 - 3, AMERICAN), (-5, PointSystem((0, 2, 5, 10, 15, 20, 25, 50, 75, 99))),
                             (0, PointSystem((0, 2, 5, 10, 15, 20, 25, 50, 75, 98)))):
            run = store.open_run("greedy", "greedy", system, seed, 1, 1.0, 0.0)
            store.add_games(run, [GameRecord(0, seed, 10, full(0), 0.1)])
    code, out, err = cli("results", "--db", db)
    assert code in (0, None), err
    lines = out.splitlines()[:4]
    assert len({len(line) for line in lines}) == 1, lines
    end = lines[0].index(" seed ") + len(" seed")
    assert [line[:end].split()[-1] for line in lines[1:]] == [str(2 ** 63 - 3), "-5", "0"]
    assert [line.split()[2:3] for line in lines[1:3]] == [["American"], ["custom"]]
    assert lines[3].split()[2:4] == ["custom", "(2)"]


def test_an_export_with_tournament_exports_that_tournaments_games(cli, tmp_path):
    """``results --tournament T --export csv`` exported every game of the store, the
    tournament's and every other run's alike."""
    db = _store(tmp_path / "t.sqlite", runs=2, games=3)
    with ResultStore(db) as store:
        t = store.open_tournament(["greedy", "random"], [AMERICAN], 2, 0, 1.0, 0.0)
        for player in ("greedy", "random"):
            run = store.open_run(player, player, AMERICAN, 0, 2, 1.0, 0.0, tournament_id=t)
            store.add_games(run, [GameRecord(i, i, 70, full(i), 0.1) for i in range(2)])
    code, out, err = cli("results", "--db", db, "--tournament", t, "--export", "json")
    assert code in (0, None), err
    assert [(r["run_id"], r["tournament_id"]) for r in json.loads(out)] == [(3, t), (3, t), (4, t), (4, t)]
    code, out, err = cli("results", "--db", db, "--tournament", 7, "--export", "csv")
    assert code == 2 and "no tournament 7" in err and out == "", err
    code, out, err = cli("results", "--db", db, "--tournament", t, "--run", 1, "--export", "csv")
    assert code == 2 and "--run or --tournament, not both" in err and err.count("\n") == 1 and out == "", err


def test_the_export_columns_are_documented_in_results_help(cli):
    """``results --help`` said "Export games as csv or json" and no more: what each column
    of the export holds (points and placements as text in CSV, empty for none, the
    formula guard) was said nowhere a user looks. Every column is named there now."""
    from pokersquares.harness.store import EXPORT_FIELDS

    code, out, err = cli("results", "--help")
    assert code == 0
    text = " ".join(out.split())
    assert [f for f in EXPORT_FIELDS if f not in text] == []
    assert "formula" in text
