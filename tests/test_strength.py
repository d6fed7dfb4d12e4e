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


def test_a_fall_of_exactly_two_expected_standard_errors_is_not_flagged_and_the_expected_se_is_the_yardstick():
    """"More than two standard errors of the expectation": the expected figure's own SE,
    not the measured one's."""
    expected = {"og": {"mean": 100.0, "se": 1.0}}
    assert compare({"og": {"mean": 98.0, "se": 1.0}}, expected) == []  # 2 SE exactly
    assert len(compare({"og": {"mean": 97.5, "se": 5.0}}, expected)) == 1  # 2.5 expected SEs (0.5 measured)
    assert compare({"og": {"mean": 97.5, "se": 5.0}}, {"og": {"mean": 100.0, "se": 1.5}}) == []


def test_each_figure_is_its_deals_mean_and_standard_error_and_agents_share_an_evaluator(monkeypatch):
    """run_strength on stand-in agents that fill the first empty cell: the mean and the
    sample standard error of their deals' scores, the mean of the first 100 deals for
    an agent of more, and one preparation for two agents of one evaluator."""
    import numpy as np

    from pokersquares import strength
    from pokersquares.game import EMPTY
    from pokersquares.points import AMERICAN

    prepared = []

    def evaluator(points):
        prepared.append(points)
        return "ev"

    class FirstEmpty:
        def choose(self, ev, grid, card, points, seconds, seed):
            assert ev == "ev"
            return int(np.flatnonzero(grid == EMPTY)[0]), 0.0

    monkeypatch.setattr(strength, "AGENTS", (strength.StrengthAgent("a", evaluator, FirstEmpty, 101),
                                             strength.StrengthAgent("b", evaluator, FirstEmpty, 100)))
    out = strength.run_strength()
    assert len(prepared) == 1
    points = np.array(AMERICAN.points, dtype=np.int64)
    scores = np.array([strength.play_deal(lambda g, c, m: int(np.flatnonzero(g == EMPTY)[0]), points, s)
                       for s in range(101)], dtype=float)
    assert scores.std() > 0
    a, b = out["a"], out["b"]
    assert (a["mean"], a["se"], a["games"]) == (round(scores.mean(), 3), round(scores.std(ddof=1) / 101 ** 0.5, 3), 101)
    assert a["mean_first_100"] == round(scores[:100].mean(), 3) == b["mean"]
    assert "mean_first_100" not in b  # every agent plays those deals: its mean is theirs
