"""``pokersquares review``: recorded games judged move by move, and the bad inputs it
refuses before its coach learns a second."""

import json
import re
import time

import pytest

from pokersquares.harness.store import ResultStore

COACH = "gettysburg:games=2000,search=greedy"  # fixed work: a quick, deterministic coach

@pytest.fixture
def store(cli, tmp_path):
    db = tmp_path / "r.sqlite"
    code, out, err = cli("run", "--player", "greedy", "--games", "3", "--seed", "10", "--db", db, "-q", "--json")
    assert code in (0, None), err
    return db

def test_a_run_reviewed_as_json_replays_each_recorded_game(cli, store):
    code, out, err = cli("review", store, "--run", "1", "--coach", COACH, "--prep-time", "5", "--json")
    assert code in (0, None), err
    data = json.loads(out)
    with ResultStore(store, readonly=True) as db:
        recorded = {g.seed: g for g in db.games(1)}
    assert [g["seed"] for g in data["games"]] == [10, 11, 12]
    for g in data["games"]:
        rec = recorded[g["seed"]]
        assert g["score"] == rec.score
        assert [(m["card"], m["cell"]) for m in g["moves"]] == [(c, r * 5 + k) for c, r, k in rec.placements]
        assert g["loss"] == pytest.approx(sum(m["loss"] for m in g["moves"]), abs=0.01)
        assert all(m["loss"] >= 0 for m in g["moves"])
        assert [m["exact"] for m in g["moves"]] == [False] * 21 + [True] * 4
    s = data["summary"]
    assert s["games"] == 3 and s["mean_score"] == pytest.approx(sum(r.score for r in recorded.values()) / 3)
    assert s["mean_loss"] == pytest.approx(sum(g["loss"] for g in data["games"]) / 3, abs=0.01)
    assert data["player"] == "greedy" and data["system"] == "American" and data["coach"] == COACH

def test_one_game_is_shown_move_by_move(cli, store):
    code, out, err = cli("review", store, "--run", "1", "--game", "11", "--coach", COACH, "--prep-time", "5",
                         "--exact-cells", "2")
    assert code in (0, None), err
    lines = out.splitlines()
    assert lines[1].startswith("deal 11: score ")
    moves = lines[2:]
    assert len(moves) == 25 and moves[0].startswith(" 1. ") and moves[24].startswith("25. ")
    assert [m.endswith("exact") for m in moves] == [False] * 23 + [True] * 2
    # A move the coach would not make names its cell and the points given away.
    assert all(("coach: row" in m) == bool(re.search(r"  -\d+\.\d\d( |$)", m)) for m in moves)
    assert sum(("coach: row" in m) for m in moves) == 25 - int(lines[1].split("; ")[1].split()[0])

@pytest.mark.parametrize("args, says", [
    (["--run", "9"], "has no run 9"),
    (["--run", "1", "--game", "99"], "no finished game dealt with seed 99"),
    (["--run", "1", "--coach", "greedy"], "greedy cannot coach a review"),
    (["--run", "1", "--coach", "nosuch"], "unknown player 'nosuch'"),
    (["--run", "1", "--prep-time", "inf"], "finite"),
    (["--run", "1", "--exact-cells", "9"], "--exact-cells"),
])
def test_bad_input_is_one_line_before_the_coach_learns(cli, store, args, says):
    start = time.monotonic()
    code, out, err = cli("review", store, *args, *([] if "--prep-time" in args else ["--prep-time", "60"]))
    assert code == 2 and says in err and err.count("\n") == 1, err
    assert time.monotonic() - start < 30  # refused before a minute of learning

def test_a_coach_given_no_time_to_learn_is_said_to_be_untrained(cli, store):
    code, out, err = cli("review", store, "--run", "1", "--game", "10", "--coach", "gettysburg", "--prep-time", "0")
    assert code in (0, None) and "learns nothing in 0 s of preparation" in err
    code, out, err = cli("review", store, "--run", "1", "--game", "10", "--coach", COACH, "--prep-time", "1")
    assert code in (0, None) and "learns nothing" not in err


def test_a_pretrained_coach_judges_american_games_with_no_preparation(cli, store):
    """``pretrained`` plays the shipped American prior: no note, and greedy's games (about
    84 a game against the prior's 126 greedily) are found to give away points."""
    code, out, err = cli("review", store, "--run", "1", "--coach", "pretrained", "--prep-time", "0", "--json")
    assert code in (0, None) and "learns nothing" not in err, err
    assert json.loads(out)["summary"]["mean_loss"] > 10


def test_what_is_not_a_store_is_refused_and_left_as_it_was(cli, tmp_path):
    code, out, err = cli("review", tmp_path / "none.sqlite", "--run", "1")
    assert code == 2 and "no result store at" in err
    text = tmp_path / "notes.txt"
    text.write_text("not a store")
    code, out, err = cli("review", text, "--run", "1")
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1
    assert text.read_text() == "not a store"


def test_a_persons_web_games_are_reviewed_under_their_name(cli, tmp_path):
    """A class's web games are runs of the player "human": the review said "run 3: human
    on American", whoever played."""
    from pokersquares.cards import deal
    from pokersquares.harness.store import GameRecord
    from pokersquares.points import AMERICAN

    db = tmp_path / "class.sqlite"
    with ResultStore(db) as store:
        run = store.open_run("human", "Ada", AMERICAN, 5, 1, 0.0, 0.0)
        store.add_games(run, [GameRecord(0, 5, 0, [(int(c), k // 5, k % 5) for k, c in enumerate(deal(5)[:25])])])
    args = ["review", db, "--run", str(run), "--coach", COACH, "--prep-time", "1"]
    code, out, err = cli(*args)
    assert code in (0, None), err
    assert out.splitlines()[0].startswith(f"run {run}: human (Ada) on American, judged by")
    code, out, err = cli(*args, "--json")
    assert (json.loads(out)["player"], json.loads(out)["player_name"]) == ("human", "Ada")


def test_a_deal_played_twice_is_reviewed_twice(cli, tmp_path):
    """A person in the web app may play one deal twice: both games are in the run, and
    asking for the deal reviews both."""
    from pokersquares.cards import deal
    from pokersquares.harness.store import GameRecord
    from pokersquares.points import AMERICAN

    cards = deal(5)[:25]
    db = tmp_path / "human.sqlite"
    with ResultStore(db) as store:
        run = store.open_run("human", "human", AMERICAN, 5, 2, 0.0, 0.0)
        games = []
        for k, order in enumerate((range(25), range(24, -1, -1))):
            placements = [(int(c), cell // 5, cell % 5) for c, cell in zip(cards, order)]
            games.append(GameRecord(k, 5, 0, placements))
        store.add_games(run, games)
    code, out, err = cli("review", db, "--run", str(run), "--game", "5", "--coach", COACH, "--prep-time", "1",
                         "--json")
    assert code in (0, None), err
    data = json.loads(out)
    assert [g["seed"] for g in data["games"]] == [5, 5]
    assert [m["cell"] for m in data["games"][0]["moves"]] == list(range(25))
    assert [m["cell"] for m in data["games"][1]["moves"]] == list(range(24, -1, -1))


def test_the_coachs_preparation_ends_its_progress_line_with_the_last_count(cli, store):
    """The line of the coach's learning ends before the review is printed: a log gets
    the count it ended with (a terminal's line is cleared, not left before stdout's)."""
    code, out, err = cli("review", store, "--run", "1", "--coach", COACH, "--prep-time", "5", "--json")
    assert code in (0, None), err
    assert [line for line in err.splitlines() if "learning" in line] == [
        f"preparing {COACH} for American: learning, 2,000 games"]


def _one_game_store(path, placements, seed=5):
    from pokersquares.harness.store import GameRecord
    from pokersquares.points import AMERICAN

    with ResultStore(path) as store:
        run = store.open_run("human", "human", AMERICAN, seed, 1, 0.0, 0.0)
        store.add_games(run, [GameRecord(0, seed, 0, placements)])
    return run


@pytest.mark.parametrize("damage, says", [
    ("repeated card", "not 25 different cards"),
    ("another deal", "not the ones that seed deals"),
    ("order swapped", "not the ones that seed deals"),
])
def test_a_damaged_game_is_named_before_the_coach_learns(cli, tmp_path, monkeypatch, damage, says):
    """A game whose cards repeat was found only after the coach's preparation (30 s by
    default), in a line that did not say which game; one whose cards another deal dealt,
    or in another order, was judged as if it were its seed's deal."""
    from pokersquares import review
    from pokersquares.cards import deal

    cards = [int(c) for c in deal(5)[:25]]
    if damage == "repeated card":
        cards[1] = cards[0]
    elif damage == "another deal":
        cards = [int(c) for c in deal(6)[:25]]
    else:
        cards[3], cards[4] = cards[4], cards[3]
    db = tmp_path / "edited.sqlite"
    run = _one_game_store(db, [(c, cell // 5, cell % 5) for cell, c in enumerate(cards)])

    def learning(*args, **kwargs):
        raise AssertionError("the coach learned")

    monkeypatch.setattr(review, "prepare_coach", learning)
    code, out, err = cli("review", db, "--run", str(run), "--coach", COACH, "--prep-time", "60")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith(f"error: run {run}'s game dealt with seed 5 cannot be reviewed") and says in err, err


def test_pretrained_without_a_prior_for_the_system_is_not_told_to_use_pretrained(cli, tmp_path):
    """On a system it has no prior for, the note told ``--coach pretrained`` to try
    ``--coach pretrained``."""
    db = tmp_path / "random.sqlite"
    code, out, err = cli("run", "--player", "greedy", "--games", "1", "--seed", "10", "--system", "random:5",
                         "--db", db, "-q", "--json")
    assert code in (0, None), err
    code, out, err = cli("review", db, "--run", "1", "--coach", "pretrained", "--prep-time", "0", "--json")
    assert code in (0, None), err
    note = [line for line in err.splitlines() if line.startswith("note: pretrained")]
    assert len(note) == 1 and "no prior for random:5" in note[0] and "--coach pretrained" not in note[0], err


def test_a_coach_saved_for_other_points_is_refused_before_it_learns(cli, store, tmp_path, monkeypatch):
    """A file trained for British given as the coach of an American run: the coach's
    preparation dropped it ("learning anew", a warning) and at 0 s judged with an
    untrained table, the review printed as the file's (greedy "gave away" 2.7 points)."""
    from pokersquares import review

    saved = tmp_path / "british.npz"
    code, out, err = cli("train", "--player", "gettysburg:games=200,threads=1", "--system", "british",
                         "--prep-time", "0", "--out", saved)
    assert code in (0, None), err

    def learning(*args, **kwargs):
        raise AssertionError("the coach began learning")

    monkeypatch.setattr(review, "prepare_coach", learning)
    code, out, err = cli("review", store, "--run", "1", "--coach", f"gettysburg:load={saved}", "--prep-time", "0")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "learned for points 0, 1, 3, 6, 12, 5, 10, 16, 30, 30" in err and "American" in err, err


def test_the_games_left_out_of_a_review_are_said(cli, tmp_path):
    """A run with penalised games: the review judged the finished ones only, and its mean
    score (of those) read as the run's, with nothing said of the rest."""
    from pokersquares.cards import deal
    from pokersquares.harness.store import GameRecord
    from pokersquares.points import AMERICAN

    db = tmp_path / "faults.sqlite"
    with ResultStore(db) as store:
        run = store.open_run("x", "x", AMERICAN, 0, 3, 1.0, 0.0)
        games = []
        for seed in range(3):
            cards = deal(seed)[:25 if seed != 1 else 2]
            placements = [(int(c), cell // 5, cell % 5) for cell, c in enumerate(cards)]
            games.append(GameRecord(seed, seed, 0, placements, 0.0, "error: RuntimeError: boom" if seed == 1 else None))
        store.add_games(run, games)
    code, out, err = cli("review", db, "--run", str(run), "--coach", COACH, "--prep-time", "1")
    assert code in (0, None), err
    assert "not reviewed: 1 of the 3 games asked for, unfinished (1 penalised): seeds 1" in out, out
    code, out, err = cli("review", db, "--run", str(run), "--coach", COACH, "--prep-time", "1", "--json")
    data = json.loads(out)
    assert data["summary"]["games"] == 2
    assert data["not_reviewed"] == [{"seed": 1, "placed": 2, "score": 0, "penalty": "error: RuntimeError: boom"}]


def test_a_coach_of_fixed_work_is_not_called_untrained_at_0_s(cli, store):
    """``gettysburg:games=2000`` learns its 2,000 games whatever the budget: at 0 s it was
    said to learn nothing and judge with an untrained evaluator's values."""
    code, out, err = cli("review", store, "--run", "1", "--game", "10", "--coach", COACH, "--prep-time", "0")
    assert code in (0, None) and "learns nothing" not in err, err


def test_a_run_whose_points_were_edited_is_not_called_missing(cli, store):
    """A store with a run's points edited by hand: the review said the run asked for did
    not exist ("has no run 1", whichever run was damaged) and sent the user to `results`."""
    import sqlite3

    conn = sqlite3.connect(store)
    with conn:
        conn.execute("UPDATE runs SET points = '[1, 2]' WHERE run_id = 1")
    conn.close()
    code, out, err = cli("review", store, "--run", "1", "--coach", COACH, "--prep-time", "5")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "point values are damaged" in err and "has no run" not in err, err
