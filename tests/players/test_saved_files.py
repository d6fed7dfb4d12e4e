"""Files a player saves and loads (``train --out``, ``load=``, ``priors=``): a damaged,
edited or misplaced file is one line (exit 2 at the command line, a PokerSquaresError in
the library) before any game is played or any row stored, never penalties, a killed game
process or values played for points they were not learned for."""

import json
import os
import sqlite3

import numpy as np
import pytest

from pokersquares.errors import PokerSquaresError
from pokersquares.evaluators.narl import InvalidTableError, NarlEvaluator
from pokersquares.evaluators.patterns import PatternFileError, read_utilities, write_utilities
from pokersquares.evaluators.td import TdEvaluator
from pokersquares.harness.registry import make_player
from pokersquares.points import AMERICAN, BRITISH
from pokersquares.priors import read_priors

R = ["--games", "2", "--prep-time", "0", "--time-per-game", "1", "-q"]


def stored(db) -> tuple[int, int]:
    if not db.exists():
        return 0, 0
    with sqlite3.connect(db) as c:
        return tuple(c.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("runs", "tournaments"))


def _points(system) -> np.ndarray:
    return np.array(system.points, dtype=np.int64)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A NARL table and TD evaluators (American, British) learned by fixed small work, and
    American pattern utilities, as their players save them."""
    folder = tmp_path_factory.mktemp("saved")
    narl = NarlEvaluator(games=300, threads=1)
    narl.prepare(_points(AMERICAN), 0.0, seed=1)
    narl.save(folder / "narl.npz", "American")
    for system in (AMERICAN, BRITISH):
        td = TdEvaluator(games=300, td_games=100, threads=1)
        td.prepare(_points(system), 0.0, seed=1)
        td.save(folder / f"td-{system.name}.npz", system.name)
    rng = np.random.default_rng(0)
    utilities, counts = np.zeros(1 << 16), np.zeros(1 << 16, dtype=np.int64)
    codes = rng.choice(1 << 16, 50, replace=False)
    utilities[codes], counts[codes] = rng.uniform(0, 20, 50), rng.integers(1, 100, 50)
    write_utilities(folder / "og.json", utilities, counts, _points(AMERICAN), "American", {}, {})
    return folder


def _edited(source, target, change):
    """A copy of the ``.npz`` at ``source`` with ``change(arrays)`` made, at ``target``."""
    with np.load(source) as data:
        arrays = {k: data[k].copy() for k in data.files}
    change(arrays)
    with open(target, "wb") as f:
        np.savez(f, **arrays)
    return target


def _meta(**changes):
    def change(arrays):
        arrays["meta"] = np.array(json.dumps({**json.loads(str(arrays["meta"])), **changes}))
    return change


def _doc(path, change):
    doc = json.loads(path.read_text())
    change(doc)
    return doc


# -- values no learning gives --------------------------------------------------------------

ABSURD = {
    # each was loaded: near 1e308 the kernels' sums overflowed to inf and NaN, and every game
    # scored the penalty (an occupied cell chosen) or its process was killed (exit -11)
    "huge table values": ("gettysburg:search=greedy,load={}", "narl.npz",
                          lambda a: a.__setitem__("sums", np.where(a["sums"] >= 0, 1.7e308, -1.7e308)),
                          "its values must be means within"),
    "huge hand-size values": ("gettysburg:search=greedy,load={}", "narl.npz",
                              lambda a: a.__setitem__("size_sums", a["size_sums"] * 0 + 1e300),
                              "its values must be means within"),
    "huge residual weights": ("td:load={}", "td-American.npz",
                              lambda a: a.__setitem__("theta", np.where(a["theta"] >= 0, 1.7e308, -1.7e308)),
                              "its weights must be within"),
    "counts past int64": ("gettysburg:search=greedy,load={}", "narl.npz",  # wrapped to negative counts
                          lambda a: a.__setitem__("counts", a["counts"].astype(np.uint64) + np.uint64(2 ** 63)),
                          "counts must fit in 64-bit"),
    "a step beyond the constructor's": ("champion:learn_in_game=true,load={}", "td-American.npz",
                                        _meta(alpha=1e300), "alpha must be at most 4, got 1e+300"),
    "a table step beyond the constructor's": ("td:load={}", "td-American.npz", _meta(table_step=5.0),
                                              "table_step must be at most 0.1, got 5.0"),
    "a start beyond the constructor's": ("td:load={}", "td-American.npz", _meta(init=1e200),
                                         "init must be at most 10000 in size, got 1e+200"),
}


@pytest.mark.parametrize("name", list(ABSURD))
def test_values_no_learning_gives_are_one_line_before_any_game(name, saved, cli, tmp_path):
    spec, source, change, says = ABSURD[name]
    path = _edited(saved / source, tmp_path / "edited.npz", change)
    db = tmp_path / "r.sqlite"
    code, out, err = cli("run", "--player", spec.format(path), "--db", db, *R)
    assert code == 2, (out, err)
    assert err.startswith("error: ") and err.count("\n") == 1 and says in err, err
    assert stored(db) == (0, 0)


def test_huge_pattern_utilities_are_one_line_before_any_game(saved, cli, tmp_path):
    """Utilities of 1e308 were played: OG's sums overflowed, its check fell back to the greedy rule, unsaid."""
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(_doc(saved / "og.json", lambda d: [p.__setitem__(1, 1.7e308) for p in d["patterns"]])))
    db = tmp_path / "r.sqlite"
    code, out, err = cli("run", "--player", f"og:load={path}", "--db", db, *R)
    assert code == 2 and err.count("\n") == 1 and "a number within ±1,280,000" in err, err
    assert stored(db) == (0, 0)


def test_what_learning_gives_still_loads(saved):
    for spec in (f"gettysburg:load={saved / 'narl.npz'}", f"td:load={saved / 'td-American.npz'}",
                 f"og:load={saved / 'og.json'}", f"pretrained:priors={saved / 'td-British.npz'}"):
        make_player(spec)


# -- pattern utilities read as written --------------------------------------------------

PATTERN_EDITS = {
    # each was read as int() or float() reads it: points 0.9 for 0 (so a file "for" other
    # points was played for American), text and flags as numbers, a code given twice overwritten
    "points that round to the game's": (lambda d: d["point_system"].__setitem__(
        "points", [p + 0.9 for p in AMERICAN.points]), "a point system is 10 integers"),
    "points as text": (lambda d: d["point_system"].__setitem__("points", "0123456789"), "a point system is 10 integers"),
    "points as flags": (lambda d: d["point_system"].__setitem__("points", [True] * 10), "a point system is 10 integers"),
    "a code as a flag": (lambda d: d["patterns"].__setitem__(0, [True, 1.0, 1]), "pattern code True"),
    "a fractional code": (lambda d: d["patterns"].__setitem__(0, [d["patterns"][0][0] + 0.5, 1.0, 1]),
                          "is not an integer in 0..65535"),
    "a code twice": (lambda d: d["patterns"].append([d["patterns"][0][0], 99.0, 5]), "is listed twice"),
    "a fractional count": (lambda d: d["patterns"].__setitem__(0, [d["patterns"][0][0], 1.0, 2.7]), "count 2.7"),
    "a utility as text": (lambda d: d["patterns"].__setitem__(0, [d["patterns"][0][0], "1e5", 1]), "utility '1e5'"),
}


@pytest.mark.parametrize("name", list(PATTERN_EDITS))
def test_pattern_utilities_are_read_as_written(name, saved, tmp_path):
    change, says = PATTERN_EDITS[name]
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(_doc(saved / "og.json", change)))
    with pytest.raises(PatternFileError, match="is malformed") as e:
        read_utilities(path)
    assert says in str(e.value)
    with pytest.raises(PokerSquaresError):
        make_player(f"og:load={path}")


# -- priors: the points they are picked by are those they play ---------------------------

def test_a_prior_naming_other_points_than_its_table_is_refused(saved, cli, tmp_path):
    """It was picked for the points its file named and played with its table's: the American
    evaluator played British games, unsaid."""
    path = _edited(saved / "td-American.npz", tmp_path / "lies.npz",
                   _meta(point_system={"name": "British", "points": list(BRITISH.points)}))
    with pytest.raises(PokerSquaresError, match="its file names points .* but its table was learned for"):
        read_priors(path)
    db = tmp_path / "r.sqlite"
    code, out, err = cli("run", "--player", f"pretrained:priors={path}", "--system", "british", "--db", db, *R)
    assert code == 2 and err.count("\n") == 1 and "but its table was learned for" in err, err
    assert stored(db) == (0, 0)


def test_a_priors_description_takes_the_tables_checked_figures(saved, tmp_path):
    """A figure of the outer meta's, unchecked, failed every game's preparation ("invalid literal for int()")."""
    path = _edited(saved / "td-American.npz", tmp_path / "odd.npz", _meta(narl_games_learned="abc"))
    prior = read_priors(path)[tuple(AMERICAN.points)]
    assert "300 table games" in prior.describe()
    player = make_player(f"pretrained:priors={path}")
    player.set_point_system(AMERICAN, 0.5)
    assert player.prior is not None and player.prior.path == path


def test_a_prior_replaced_after_it_was_read_is_refused_not_played(saved, tmp_path):
    """A prior is read again when played: one trained anew for other points meanwhile was
    played for the points it had been picked by."""
    path = tmp_path / "prior.npz"
    path.write_bytes((saved / "td-American.npz").read_bytes())
    player = make_player(f"pretrained:priors={path}")
    path.write_bytes((saved / "td-British.npz").read_bytes())
    with pytest.raises(PokerSquaresError, match="changed since it was read"):
        player.set_point_system(AMERICAN, 0.5)


# -- another player's file, or none ------------------------------------------------------

def test_another_kind_of_players_file_is_named(saved, tmp_path):
    """An og file given to gettysburg was "not an .npz archive", a NARL table given to og "not
    a text file", a NARL table given to td named only its format."""
    with pytest.raises(InvalidTableError, match="it holds pattern utilities .*og, beemo"):
        make_player(f"gettysburg:load={saved / 'og.json'}")
    for spec in (f"og:load={saved / 'narl.npz'}", f"beemo:load={saved / 'td-American.npz'}"):
        with pytest.raises(PatternFileError, match=r"is an \.npz archive \(a saved NARL table or TD evaluator"):
            make_player(spec)
    with pytest.raises(InvalidTableError, match="a NARL table, which gettysburg and champion load"):
        make_player(f"td:load={saved / 'narl.npz'}")


@pytest.mark.parametrize("spec", ["pretrained:priors=", "gettysburg:load=", "og:load=", "champion:load="])
def test_an_empty_file_name_is_refused(spec, saved, cli, tmp_path, monkeypatch):
    """``priors=`` read every .npz of the current folder as priors (Path("") is "."), and
    ``load=`` said the current folder was "a folder" or "Is a directory"."""
    monkeypatch.chdir(saved)  # a folder of saved files: the priors there were taken
    db = tmp_path / "r.sqlite"
    code, out, err = cli("run", "--player", spec, "--db", db, *R)
    assert code == 2 and err.count("\n") == 1 and "(an empty name)" in err, err
    assert stored(db) == (0, 0)


# -- train --out ---------------------------------------------------------------------------

def test_train_out_through_a_symlink_replaces_the_file_it_names(saved, cli, tmp_path):
    """``--out current.npz -> runs/v1.npz`` replaced the link by a regular file and left
    runs/v1.npz as it was, unsaid (what ``pretrained:priors=runs`` then read)."""
    runs = tmp_path / "runs"
    runs.mkdir()
    target = runs / "v1.npz"
    target.write_bytes((saved / "narl.npz").read_bytes())
    link = tmp_path / "current.npz"
    link.symlink_to(target)
    before = target.read_bytes()
    code, out, err = cli("train", "--player", "gettysburg:games=200", "--system", "british",
                         "--prep-time", "0.5", "--out", link)
    assert code in (0, None), err
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() != before
    assert np.array_equal(NarlEvaluator().load(link).points, BRITISH.points)
    assert [p.name for p in runs.iterdir()] == ["v1.npz"]  # no temporary file left beside it


def test_champion_tells_a_saved_evaluator_named_json_by_what_it_holds(saved, tmp_path):
    """A name ending in .json was taken for pattern utilities whatever it held: a NARL table
    so named was "not a text file", or said to "hold pattern utilities" with evaluator=narl."""
    renamed = tmp_path / "narl.json"
    renamed.write_bytes((saved / "narl.npz").read_bytes())
    for spec in (f"champion:load={renamed}", f"champion:load={renamed},evaluator=narl"):
        player = make_player(spec)
        assert isinstance(player.evaluator, NarlEvaluator) and player.evaluator.games_learned == 300
    with pytest.raises(PokerSquaresError, match="which evaluator=patterns plays, not evaluator=narl"):
        make_player(f"champion:load={saved / 'og.json'},evaluator=narl")
