import json
import time

import numpy as np
import pytest

from pokersquares.evaluators.patterns import (
    PatternEvaluator, PatternFileError, learn_utilities, read_utilities, warm_up,
)
from pokersquares.kernels import patterns as kp
from pokersquares.points import AMERICAN, BRITISH

AMERICAN_POINTS = np.array(AMERICAN.points, dtype=np.int64)


@pytest.fixture(scope="module")
def learned() -> PatternEvaluator:
    # Compile first, as a player's untimed warm-up does: on a cold numba cache the
    # compilation alone would spend the 2 s budget and leave nothing learned.
    warm_up()
    ev = PatternEvaluator(train_games=2000, eval_games=1000)
    ev.prepare(AMERICAN_POINTS, 2.0, seed=1)
    return ev


def test_learning_improves_on_untrained_utilities(learned):
    untrained = kp.og_games(np.zeros(kp.NUM_PATTERNS), AMERICAN_POINTS, 3000, 11).mean()
    trained = kp.og_games(learned.utilities, AMERICAN_POINTS, 3000, 11).mean()
    assert trained > untrained + 50
    assert learned.report.rounds >= 1 and learned.report.eval_mean is not None
    assert 40 <= learned.shapes_seen < learned.patterns_seen


def test_learning_keeps_the_best_round():
    _, _, report = learn_utilities(AMERICAN_POINTS, 10.0, 3, train_games=500, eval_games=500, max_rounds=4)
    assert report.rounds == 4 and report.eval_mean == max(report.history)


def test_learning_respects_its_budget(fake_clock):
    """On a clock that moves only with the games played (20 us per training game,
    10 us per evaluation game), learning stops within its budget, for a budget of
    several rounds and for one too short for a single round."""
    from pokersquares.evaluators import patterns as ev_patterns

    clock = fake_clock.install(ev_patterns)
    fake_clock.charge_per(ev_patterns.kp, "train_games", lambda *args: 2e-5 * args[4])
    fake_clock.charge_per(ev_patterns.kp, "og_games", lambda *args: 1e-5 * args[2])
    for budget, rounds in ((0.5, 3), (0.05, 0)):
        start = clock.now
        _, counts, report = learn_utilities(AMERICAN_POINTS, budget, 4)
        assert clock.now - start <= budget
        assert report.rounds == rounds
        assert counts.sum() > 0  # even a budget too short for a round leaves a partly trained table


def test_no_feedback_trains_on_random_play():
    # Feedback learning varies much from one seed to the next (one run in three locked
    # into a poor policy, 85 against 110 to 116): compare means over three seeds.
    means = {}
    for feedback in (False, True):
        scores = []
        for seed in (5, 6, 7):
            u, _, report = learn_utilities(AMERICAN_POINTS, 10.0, seed, train_games=5000, eval_games=500,
                                           feedback=feedback, ucb_every=0, max_rounds=1)
            assert report.rounds == 1
            scores.append(kp.og_games(u, AMERICAN_POINTS, 2000, 1).mean())
        means[feedback] = np.mean(scores)
    assert means[False] < means[True]


def test_save_load_round_trip(tmp_path, learned):
    path = tmp_path / "american.json"
    learned.save(path, point_system_name="American")
    doc = json.loads(path.read_text())
    assert doc["format"] == "pokersquares-pattern-utilities" and doc["version"] == 1
    assert doc["point_system"] == {"name": "American", "points": list(AMERICAN.points)}
    loaded = PatternEvaluator(load=str(path))
    t = time.perf_counter()
    loaded.prepare(AMERICAN_POINTS, 60.0)
    assert time.perf_counter() - t < 5  # no learning: the table is used as saved
    assert loaded.loaded == str(path)
    assert np.array_equal(loaded.utilities, learned.utilities)
    assert np.array_equal(loaded.counts, learned.counts)
    assert PatternEvaluator().load(path).points.tolist() == list(AMERICAN.points)


def test_a_table_for_another_point_system_is_not_used(tmp_path, learned):
    path = tmp_path / "american.json"
    learned.save(path)
    ev = PatternEvaluator(load=str(path), train_games=200, eval_games=200)
    with pytest.warns(UserWarning, match="learning anew"):
        ev.prepare(np.array(BRITISH.points, dtype=np.int64), 0.5)
    assert ev.loaded is None and not np.array_equal(ev.utilities, learned.utilities)


_HEAD = '{"format": "pokersquares-pattern-utilities", "version": 1, "encoding": "beemo16", "encoding_version": 1, '


@pytest.mark.parametrize("content, message", [
    (None, "cannot read"),
    ("not json", "not JSON"),
    ('{"format": "other"}', "not a pokersquares-pattern-utilities"),
    ('{"format": "pokersquares-pattern-utilities", "version": 99}', "format version"),
    ('{"format": "pokersquares-pattern-utilities", "version": 1, "encoding": "beemo16", "encoding_version": 0}',
     "encoding"),
    ('{"format": "pokersquares-pattern-utilities", "version": 1, "encoding": "beemo16", "encoding_version": 1,'
     ' "point_system": {"points": [1, 2]}, "patterns": []}', "malformed"),
    # Each of these was read: NaN or infinite utilities were played, 1e400 (infinity to
    # json) and nesting too deep to parse escaped as OverflowError and RecursionError.
    pytest.param(_HEAD + '"point_system": {"points": [0,1,2,3,4,5,6,7,8,9]}, "patterns": [[6, NaN, 3]]}',
                 "utility nan", id="NaN utility"),
    pytest.param(_HEAD + '"point_system": {"points": [0,1,2,3,4,5,6,7,8,9]}, "patterns": [[6, -Infinity, 3]]}',
                 "utility -inf", id="infinite utility"),
    pytest.param(_HEAD + '"point_system": {"points": [0,1,2,3,4,5,6,7,8,9]}, "patterns": [[6, 1.5, -3]]}',
                 "count >= 0", id="negative count"),
    pytest.param(_HEAD + '"point_system": {"points": [1e400,1,2,3,4,5,6,7,8,9]}, "patterns": []}', "malformed",
                 id="infinite points"),
    pytest.param(_HEAD + '"point_system": {"points": [1e30,1,2,3,4,5,6,7,8,9]}, "patterns": []}', "malformed",
                 id="points past int64"),
    pytest.param("[" * 100_000 + "]" * 100_000, "nested too deep", id="deep nesting"),
])
def test_bad_files_are_reported(tmp_path, content, message):
    path = tmp_path / "table.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(PatternFileError, match=message):
        read_utilities(path)


def test_a_pipe_a_device_or_a_huge_file_is_refused_without_reading_it(tmp_path):
    """A named pipe was waited on for ever, /dev/zero read until memory ran out, and a
    huge file read whole before it was found not to be a table."""
    import os

    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)
    huge = tmp_path / "huge.json"
    with open(huge, "wb") as f:
        f.truncate(65 << 20)  # sparse: nothing written
    for path, says in ((pipe, "not a regular file"), ("/dev/zero", "not a regular file"),
                       (huge, "68,157,440 bytes, more than a pokersquares-pattern-utilities file holds")):
        with pytest.raises(PatternFileError, match=f"^cannot read utilities file '{path}': {says}$"):
            read_utilities(path)


def test_evaluator_interface(learned):
    grid = np.full(25, -1, dtype=np.int8)
    grid[[0, 6, 12]] = [0, 14, 28]
    values = learned.placement_values(grid, 40)
    assert values.shape == (25,) and np.isneginf(values[[0, 6, 12]]).all() and np.isfinite(np.delete(values, [0, 6, 12])).all()
    assert learned.playouts(grid, 16, 1).shape == (16,)
    cells = np.array([1, 2, 3])
    assert learned.placement_playouts(grid, 40, cells, 5, 1).shape == (3, 5)


def test_a_warm_up_copy_learns_without_the_loaded_file_and_the_original_keeps_it(tmp_path, learned):
    import warnings

    path = tmp_path / "american.json"
    learned.save(path)
    ev = PatternEvaluator(load=str(path), train_games=200, eval_games=200)
    twin = ev.warm_up_copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "learning anew" for the warm-up's own points
        twin.prepare(np.array(BRITISH.points, dtype=np.int64), 0.2)
    ev.prepare(AMERICAN_POINTS, 60.0)
    assert ev.loaded == str(path) and np.array_equal(ev.utilities, learned.utilities)


def test_a_table_loaded_by_load_is_kept_by_prepare_for_its_points(tmp_path, learned):
    """``PatternEvaluator().load(f)`` is what ``PatternEvaluator(load=f)`` is: the next
    ``prepare`` for the file's points plays the file, for other points learns anew."""
    import warnings

    path = tmp_path / "american.json"
    learned.save(path, point_system_name="American")
    ev = PatternEvaluator(train_games=200, eval_games=200, learn_threads=1).load(path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ev.prepare(AMERICAN_POINTS, 0.5, seed=3)
    assert ev.loaded == str(path) and ev.report is None
    assert np.array_equal(ev.utilities, learned.utilities) and np.array_equal(ev.counts, learned.counts)
    other = PatternEvaluator(train_games=200, eval_games=200, learn_threads=1).load(path)
    with pytest.warns(UserWarning, match="learning anew"):
        other.prepare(np.array(BRITISH.points, dtype=np.int64), 0.5)
    assert other.loaded is None and not np.array_equal(other.utilities, learned.utilities)


def test_a_binary_file_is_a_pattern_file_error(tmp_path):
    path = tmp_path / "table.json"
    path.write_bytes(bytes(range(256)))
    with pytest.raises(PatternFileError, match="not a text file"):
        read_utilities(path)
    with pytest.raises(PatternFileError):
        PatternEvaluator().load(path)


def test_saving_before_anything_is_learned_is_a_clear_error(tmp_path):
    from pokersquares.errors import PokerSquaresError

    with pytest.raises(PokerSquaresError, match="nothing yet to save: prepare or load first"):
        PatternEvaluator().save(tmp_path / "empty.json")
    assert not (tmp_path / "empty.json").exists()


def _mid_game(cards: int, seed: int) -> np.ndarray:
    grid = np.full(25, -1, dtype=np.int8)
    rng = np.random.default_rng(seed)
    grid[rng.permutation(25)[:cards]] = rng.permutation(52)[:cards]
    return grid


@pytest.mark.parametrize("depth", [1, 3, 6])
def test_limited_playouts_kernel_agrees_with_the_python_rule(learned, depth):
    """The kernel plays the rule of ``Evaluator.limited_playouts`` (deal ``depth`` cards,
    place each where OG's values are highest, end in the summed line utilities): its
    mean over 3,000 playouts is within 4.5 standard errors of the plain-Python loop's."""
    from pokersquares.evaluators.base import Evaluator

    grid = _mid_game(9, depth)
    fast = learned.limited_playouts(grid, 3000, depth, 5)
    slow = Evaluator.limited_playouts(learned, grid, 3000, depth, 6)
    se = np.sqrt(fast.var(ddof=1) / len(fast) + slow.var(ddof=1) / len(slow))
    assert abs(fast.mean() - slow.mean()) < 4.5 * se, (fast.mean(), slow.mean(), se)
    assert fast.std() > 0


def test_limited_playouts_end_in_the_line_utilities_or_the_exact_score(learned):
    grid = _mid_game(12, 3)
    # No card dealt: every playout is the grid's own utility (its state value).
    np.testing.assert_allclose(learned.limited_playouts(grid, 4, 0, 1), learned.state_value(grid))
    # Reaching the full grid: exact scores, whole numbers, distributed as OG's own games.
    deep = learned.limited_playouts(grid, 3000, 13, 2)
    assert np.array_equal(deep, np.round(deep))
    full = learned.playouts(grid, 3000, 3).astype(float)
    se = np.sqrt(deep.var(ddof=1) / 3000 + full.var(ddof=1) / 3000)
    assert abs(deep.mean() - full.mean()) < 4.5 * se
    last = _mid_game(24, 4)
    (cell,) = np.flatnonzero(last == -1)
    from pokersquares.kernels.core import score_grid
    exact = set()
    for card in sorted(set(range(52)) - set(last.tolist())):
        g = last.copy()
        g[cell] = card
        exact.add(float(score_grid(g, AMERICAN_POINTS)))
    assert set(learned.limited_playouts(last, 200, 1, 0).tolist()) <= exact


def test_limited_playouts_deal_common_random_numbers(learned):
    """Two children of one grid (the card in hand placed in two cells) are dealt the
    same cards in the same order for one seed: their paired difference varies far less
    than that of independent seeds, and one seed gives the same playouts again."""
    grid = _mid_game(8, 7)
    a, b = grid.copy(), grid.copy()
    empty = np.flatnonzero(grid == -1)
    a[empty[0]] = 40 if 40 not in grid else 41
    b[empty[1]] = a[empty[0]]
    np.testing.assert_array_equal(learned.limited_playouts(a, 500, 4, 9), learned.limited_playouts(a, 500, 4, 9))
    paired = learned.limited_playouts(a, 2000, 4, 9) - learned.limited_playouts(b, 2000, 4, 9)
    unpaired = learned.limited_playouts(a, 2000, 4, 9) - learned.limited_playouts(b, 2000, 4, 10)
    assert paired.var() < 0.5 * unpaired.var()


def test_limited_playouts_kernel_releases_the_gil():
    """The search splits a round's playouts between threads, one a core: a kernel that
    held the GIL would run them one after the other (the generic Python loop did)."""
    assert kp.og_limited_playouts.targetoptions.get("nogil") is True


def test_learn_utilities_refuses_points_the_kernels_would_overflow_on():
    """It took raw points as they came: 2**62 overflowed in its games' int64 scores."""
    from pokersquares.errors import InvalidPointSystemError

    for points in (np.full(10, 2 ** 62), np.full(10, 128), np.zeros(3, dtype=np.int64)):
        with pytest.raises(InvalidPointSystemError):
            learn_utilities(points, 0.0, 0)
