"""A researcher's own evaluator and own search, plugged into ``SearchPlayer`` beside the
built-in pieces: what they get wrong (NaN values, +inf on occupied cells, a grid they
change, a bare cell for an answer, a ``prepare`` that keeps no points, a built-in search
option their evaluator cannot take) is said in one line naming the piece, instead of
being played on or scored for a reason that names neither."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from pokersquares.errors import PokerSquaresError
from pokersquares.evaluators.base import Evaluator
from pokersquares.harness.game_play import play_game
from pokersquares.kernels.core import score_grid
from pokersquares.players import SearchPlayer
from pokersquares.points import AMERICAN
from pokersquares.search.base import GreedySearch, Search

POINTS = np.array(AMERICAN.points, dtype=np.int64)


class LineValue(Evaluator):
    """Plain Python: the points of the lines as they stand (a partial line's pair counts)."""

    name = "linevalue"

    def state_value(self, grid):
        self._require_points()
        return float(score_grid(np.asarray(grid, dtype=np.int8), self.points))

    def placement_values(self, grid, card):
        self._require_points()
        out = np.full(25, -np.inf)
        g = np.array(grid, dtype=np.int8)
        for cell in np.flatnonzero(g == -1):
            g[cell] = card
            out[cell] = self.state_value(g)
            g[cell] = -1
        return out

    def playouts(self, grid, n, seed):
        raise NotImplementedError


class NanValues(LineValue):
    name = "nanvalues"

    def placement_values(self, grid, card):
        values = super().placement_values(grid, card)
        values[np.flatnonzero(np.asarray(grid) == -1)[-1]] = np.nan
        return values


class PlusInfOnOccupied(LineValue):
    name = "plusinf"

    def placement_values(self, grid, card):
        values = super().placement_values(grid, card)
        values[np.asarray(grid) != -1] = np.inf
        return values


class LeavesTheCard(LineValue):
    name = "leavesthecard"

    def placement_values(self, grid, card):
        values = super().placement_values(grid, card)
        grid[int(np.argmax(values))] = card  # forgot to work on a copy
        return values


class ForgetsThePoints(LineValue):
    name = "forgetsthepoints"

    def prepare(self, points, budget_s, seed=0):
        self.table = {}  # no super().prepare(...)


class BareCell(Search):
    name = "barecell"

    def choose(self, evaluator, grid, card, points, time_s, seed):
        return int(np.argmax(evaluator.placement_values(grid, card)))


class FirstOccupied(Search):
    name = "firstoccupied"

    def choose(self, evaluator, grid, card, points, time_s, seed):
        return int(np.flatnonzero(np.asarray(grid) != -1)[0]), evaluator.placement_values(grid, card)


class Cell25(Search):
    name = "cell25"

    def choose(self, evaluator, grid, card, points, time_s, seed):
        return 25, evaluator.placement_values(grid, card)


def _prepared(evaluator, search=None):
    player = SearchPlayer(evaluator, search or GreedySearch())
    player.set_point_system(AMERICAN, 0.5)
    player.start_game()
    return player


def _second_move(player):
    """The first card goes to the corner unsearched; the second is the first searched."""
    player.get_play(0, 10.0)
    return player.get_play(14, 10.0)


def test_own_evaluator_and_own_search_play_games_without_penalty():
    player = SearchPlayer(LineValue(), GreedySearch())
    player.set_point_system(AMERICAN, 0.5)
    for seed in (3, 4):
        record = play_game(player, AMERICAN, seed, 30.0)
        assert record.penalty is None and record.score > 0


def test_nan_values_are_refused_not_played():
    """np.argmax takes a NaN as the best value: the NaN cell was played, silently."""
    player = _prepared(NanValues())
    with pytest.raises(PokerSquaresError, match=r"nanvalues evaluator gave values of NaN \(cell 24\)"):
        _second_move(player)


def test_greedy_cell_refuses_nan_values():
    evaluator = NanValues()
    evaluator.prepare(POINTS, 0.0)
    grid = np.full(25, -1, dtype=np.int8)
    with pytest.raises(PokerSquaresError, match="nanvalues evaluator's placement_values gave NaN"):
        evaluator.greedy_cell(grid, 5)


def test_plus_inf_on_an_occupied_cell_names_the_evaluator():
    player = _prepared(PlusInfOnOccupied())
    with pytest.raises(PokerSquaresError, match="greedy search over the plusinf evaluator chose cell 0, which is occupied"):
        _second_move(player)


def test_an_evaluator_changing_the_grid_it_is_given_is_named_and_the_players_grid_is_kept():
    """It put the card in hand on the player's own grid: the game then refused the cell
    as holding that very card ("choose answered cell 1, which holds 2C")."""
    player = _prepared(LeavesTheCard())
    with pytest.raises(PokerSquaresError, match=r"leavesthecard evaluator changed the grid it was given \(cell 1\)"):
        _second_move(player)
    assert player.grid.tolist() == [0] + [-1] * 24


def test_a_bare_cell_answer_says_what_choose_returns():
    player = _prepared(LineValue(), BareCell())
    with pytest.raises(PokerSquaresError, match=r"barecell search .* answered 1; a search's choose returns \(cell, values\)"):
        _second_move(player)


@pytest.mark.parametrize("search, message", [(FirstOccupied(), "chose cell 0, which is occupied"),
                                             (Cell25(), "chose 25, not a cell index 0..24")])
def test_a_search_answering_no_empty_cell_is_named(search, message):
    player = _prepared(LineValue(), search)
    with pytest.raises(PokerSquaresError, match=f"the {search.name} search over the linevalue evaluator {message}"):
        _second_move(player)


def test_a_prepare_that_keeps_no_points_is_said_at_the_preparation():
    """It was told at every move to "call prepare(points, budget_s) ... first"."""
    player = SearchPlayer(ForgetsThePoints(), GreedySearch())
    with pytest.raises(PokerSquaresError, match=r"forgetsthepoints evaluator's prepare kept no point system: call super\(\)\.prepare"):
        player.set_point_system(AMERICAN, 0.5)
    with pytest.raises(PokerSquaresError, match="kept no point system"):
        player.warm_up()


def test_crn_halving_options_an_evaluator_cannot_take_are_refused_at_construction():
    from pokersquares.evaluators import TdEvaluator
    from pokersquares.search import CrnHalving, TdSearch

    with pytest.raises(PokerSquaresError, match=r"CrnHalving\(lam=0.5\) passes lam= .* linevalue evaluator's does not take"):
        SearchPlayer(LineValue(), CrnHalving(cores=1, lam=0.5))
    with pytest.raises(PokerSquaresError, match=r"CrnHalving\(stratify=True\) passes first="):
        SearchPlayer(LineValue(), TdSearch(CrnHalving(cores=1, stratify=True)))
    SearchPlayer(TdEvaluator(), CrnHalving(cores=1, lam=0.5, stratify=True))  # the TD evaluator takes both
    SearchPlayer(LineValue(), CrnHalving(cores=1))


def test_crn_halving_with_lam_over_an_own_evaluator_is_refused_before_any_game(tmp_path):
    """From the command line every game scored the penalty ("preparation failed:
    TypeError: ... unexpected keyword argument 'lam'") and the run was recorded."""
    (tmp_path / "ownpieces.py").write_text(textwrap.dedent("""
        from pokersquares.players import SearchPlayer
        from pokersquares.search import CrnHalving
        from pokersquares.search.base import GreedySearch
        from test_own_pieces_module import LineValue

        def make():
            return SearchPlayer(LineValue(), CrnHalving(cores=1, lam=0.5))
    """))
    (tmp_path / "test_own_pieces_module.py").write_text(open(__file__).read())
    done = subprocess.run([sys.executable, "-m", "pokersquares", "run", "--player", "ownpieces:make", "--games", "2",
                           "--time-per-game", "1", "--prep-time", "1", "--db", str(tmp_path / "r.sqlite")],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path),
                                                                                         os.environ.get("PYTHONPATH")]))})
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode != 0, done.stderr
    assert "Traceback" not in done.stderr
    assert lines[-1].startswith("error: ") and "CrnHalving(lam=0.5) passes lam=" in lines[-1], done.stderr
    assert "penalty" not in done.stderr


def test_duck_typed_pieces_are_refused_at_construction():
    """Only the method a search calls (placement_values, choose) was checked: the rest a
    player asks for failed at the warm-up, as an AttributeError in every game's penalty."""

    class DuckEvaluator:
        name = "duck"

        def placement_values(self, grid, card):
            return np.zeros(25)

    class DuckSearch:
        def choose(self, evaluator, grid, card, points, time_s, seed):
            return 0, np.zeros(25)

    with pytest.raises(PokerSquaresError, match="subclass of pokersquares.evaluators.Evaluator.*DuckEvaluator is not one"):
        SearchPlayer(DuckEvaluator(), GreedySearch())
    with pytest.raises(PokerSquaresError, match="subclass of pokersquares.search.Search.*DuckSearch is not one"):
        SearchPlayer(LineValue(), DuckSearch())
