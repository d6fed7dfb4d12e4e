"""The deterministic strength benchmark: its comparison with the expected figures,
and its input checks (the figures themselves are benchmarks, not tests)."""

import json

import pytest

from pokersquares.strength import AGENTS, compare, run_strength


def test_a_fall_beyond_two_standard_errors_is_flagged():
    expected = {"og": {"mean": 115.0, "se": 0.8}, "tiger": {"mean": 98.0, "se": 3.5}}
    measured = {"og": {"mean": 113.3, "se": 0.8}, "tiger": {"mean": 91.5, "se": 3.5}}
    warnings = compare(measured, expected)
    assert len(warnings) == 1 and warnings[0].startswith("og: 113.30 is 1.70 below")
    assert compare({"og": {"mean": 113.5, "se": 0.8}}, expected) == []  # 1.5 < 2 x 0.8
    assert compare({"new": {"mean": 1.0, "se": 1.0}}, expected) == []  # nothing to compare with


def test_every_agent_has_a_stored_expectation_and_unknown_agents_are_refused():
    from pathlib import Path
    stored = json.loads((Path(__file__).resolve().parents[1] / "benchmarks" / "strength_expected.json").read_text())
    assert set(stored) == {a.name for a in AGENTS}
    with pytest.raises(ValueError, match="unknown agent 'nope'"):
        run_strength(["nope"])


def test_a_deal_is_played_as_the_contest_deals_it():
    """play_deal: the first card to the corner, then the move rule for every card but the
    last, which goes to the one empty cell; the score is the final grid's."""
    import numpy as np

    from pokersquares.cards import deal
    from pokersquares.game import EMPTY
    from pokersquares.kernels.core import score_grid
    from pokersquares.points import AMERICAN
    from pokersquares.strength import play_deal

    points = np.array(AMERICAN.points, dtype=np.int64)
    cards = [int(c) for c in deal(12)[:25]]
    asked = []

    def last_empty(grid, card, move):  # fills the grid from the end
        asked.append((move, card, grid.copy()))
        return int(np.flatnonzero(grid == EMPTY)[-1])

    score = play_deal(last_empty, points, 12)
    assert [m for m, _, _ in asked] == list(range(1, 24))
    assert [c for _, c, _ in asked] == cards[1:24]
    first = asked[0][2]
    assert first[0] == cards[0] and (first == EMPTY).sum() == 24
    final = np.array([cards[0], cards[24], *cards[23:0:-1]], dtype=np.int8)
    assert score == score_grid(final, points)


@pytest.mark.parametrize("names", ["og", [5], {"og": 1}])
def test_agent_names_are_a_list_of_names(names):
    """"og" was read as the agents "o" and "g"."""
    from pokersquares.bench import BenchError, UnknownBenchmarkError
    with pytest.raises((BenchError, UnknownBenchmarkError)):
        run_strength(names)


@pytest.mark.parametrize("kwargs", [dict(scale=float("nan")), dict(scale=float("inf")), dict(scale="1"),
                                    dict(scale=-1.0), dict(scale=1e6), dict(names="random_games_per_s"),
                                    dict(names=["nope"])])
def test_a_benchmark_request_out_of_range_is_one_bench_error(kwargs):
    """A nan or infinite scale met int()'s ValueError or OverflowError deep in a benchmark,
    a scale of a million would have run for days, and a name as text was read letter by letter."""
    from pokersquares.bench import BenchError, UnknownBenchmarkError, run_benchmarks
    with pytest.raises((BenchError, UnknownBenchmarkError)):
        run_benchmarks(repeats=1, **kwargs)
