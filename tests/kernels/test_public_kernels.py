"""The kernels' documented names (``pokersquares.kernels``) called with what their kernels
would misread: one PokerSquaresError naming it, never a read or write out of bounds.
The kernels index without bounds checks: ``random_games(5, 1, np.array([0, 2]))``
returned scores such as 139743719822520 read past the two points, a grid of 20 cells
scored 33, a shuffle whose prefix ran past its items wrote beyond them."""

import json
import subprocess
import sys

import numpy as np
import pytest

from pokersquares import AMERICAN
from pokersquares import kernels as K
from pokersquares.errors import (IllegalPlacementError, InvalidCardError, InvalidCellError, InvalidPointSystemError,
                                 PokerSquaresError)
from pokersquares.kernels import core

PTS = np.array(AMERICAN.points, dtype=np.int64)
GRID = np.arange(25, dtype=np.int8)
LINE = np.array([0, 1, 2, 3, 4])


def _state():
    return core.rng_seed(5)


CASES = {
    "random_games_two_points": (lambda: K.random_games(5, 1, np.array([0, 2])), InvalidPointSystemError, "10 integers"),
    "random_games_float_points": (lambda: K.random_games(5, 1, PTS + 0.5), InvalidPointSystemError, "10 integers"),
    "random_games_nan_points": (lambda: K.random_games(5, 1, np.full(10, np.nan)), InvalidPointSystemError,
                                "10 integers"),
    "random_games_2d_points": (lambda: K.random_games(5, 1, np.stack([PTS, PTS])), InvalidPointSystemError,
                               "10 integers"),
    "random_games_negative_count": (lambda: K.random_games(-1, 1, PTS), PokerSquaresError, "number of games"),
    "random_games_float_seed": (lambda: K.random_games(5, 0.5, PTS), PokerSquaresError, "seed"),
    "score_grid_20_cells": (lambda: K.score_grid(GRID[:20], PTS), IllegalPlacementError, "25 cells"),
    "score_grid_card_99": (lambda: K.score_grid(np.full(25, 99), PTS), IllegalPlacementError, "0..51"),
    "score_grid_nine_points": (lambda: K.score_grid(GRID, PTS[:9]), InvalidPointSystemError, "10 integers"),
    "line_scores_three_points": (lambda: K.line_scores(GRID, PTS[:3]), InvalidPointSystemError, "10 integers"),
    "line_scores_24_cells": (lambda: K.line_scores(GRID[:24], PTS), IllegalPlacementError, "25 cells"),
    "classify_batch_3_columns": (lambda: K.classify_batch(np.zeros((1, 3), dtype=np.int8)), InvalidCardError, "(N, 5)"),
    "classify_batch_card_52": (lambda: K.classify_batch(np.array([[0, 1, 2, 3, 52]])), InvalidCardError, "0..51"),
    "classify_cards_card_60": (lambda: K.classify_cards(np.array([0, 60])), InvalidCardError, "0..51"),
    "classify_cards_2d": (lambda: K.classify_cards(np.zeros((2, 2), dtype=np.int8)), InvalidCardError, "a list"),
    "classify_line_past_the_cells": (lambda: K.classify_line(GRID[:5], np.array([0, 1, 7])), InvalidCellError,
                                     "positions are 0..4"),
    "line_features_negative_position": (lambda: K.line_features(GRID[:5], np.array([-1, 1])), InvalidCellError,
                                        "positions are 0..4"),
    "classify_packed_rank_mask": (lambda: K.classify_packed(5, 0, 1 << 13, True), PokerSquaresError, "rank mask"),
    "add_card_52": (lambda: K.add_card(52, 0, 0, 0, -1, True), InvalidCardError, "0..51"),
    "rng_seed_float": (lambda: K.rng_seed(0.5), PokerSquaresError, "seed"),
    "rng_next_empty_state": (lambda: K.rng_next(np.zeros(0, dtype=np.uint64)), PokerSquaresError, "uint64[1]"),
    "rng_below_zero": (lambda: K.rng_below(_state(), 0), PokerSquaresError, "bound"),
    # the prefix of 3..10 runs one past the ten items: the kernel wrote items[10]
    "shuffle_prefix_past_the_items": (lambda: K.shuffle_prefix(_state(), np.arange(10), 3, 8), PokerSquaresError,
                                      "count must be an integer 0..7"),
    "shuffle_prefix_start_past_the_items": (lambda: K.shuffle_prefix(_state(), np.arange(10), 11, 0),
                                            PokerSquaresError, "start"),
}


@pytest.mark.parametrize("call, error, words", CASES.values(), ids=CASES)
def test_what_a_kernel_would_misread_is_refused_in_one_line(call, error, words):
    with pytest.raises(error) as refused:
        call()
    message = str(refused.value)
    assert words in message and "\n" not in message, message


def test_a_refused_shuffle_leaves_its_items_as_they_were():
    items = np.arange(10)
    with pytest.raises(PokerSquaresError):
        K.shuffle_prefix(_state(), items, 3, 8)
    assert items.tolist() == list(range(10))


def test_the_checked_names_give_what_their_kernels_give():
    """Each name hands its kernel the arguments it was given: the same scores, hands and
    random stream as ``pokersquares.kernels.core``'s unchecked kernels (what the package's
    own loops call), and a list of points is taken as its array."""
    assert K.random_games(200, 9, list(AMERICAN.points)).tolist() == core.random_games(200, 9, PTS).tolist()
    assert K.score_grid(GRID, PTS) == core.score_grid(GRID, PTS) == 300
    assert K.line_scores(GRID, PTS).tolist() == core.line_scores(GRID, PTS).tolist()
    hands = np.random.default_rng(0).permutation(52)[:50].reshape(10, 5).astype(np.int8)
    assert K.classify_batch(hands).tolist() == core.classify_batch(hands).tolist()
    assert K.classify_cards([0, 13, 26, -1]) == core.classify_cards(np.array([0, 13, 26, -1], dtype=np.int8)) == 3
    assert K.line_features(GRID, LINE) == core.line_features(GRID, LINE)
    assert K.classify_line(GRID, LINE) == core.classify_line(GRID, LINE) == 8  # A-5 of clubs
    n, counts, rank_mask, _, suited = core.line_features(GRID, LINE)
    assert K.classify_packed(n, counts, rank_mask, suited) == 8
    assert K.add_card(12, 0, 0, 0, -1, True) == core.add_card(12, 0, 0, 0, -1, True)
    a, b = K.rng_seed(7), core.rng_seed(7)
    assert a.tolist() == b.tolist()
    assert [K.rng_next(a) for _ in range(3)] == [core.rng_next(b) for _ in range(3)]
    assert [K.rng_below(a, 52) for _ in range(20)] == [core.rng_below(b, 52) for _ in range(20)]
    x, y = np.arange(52), np.arange(52)
    K.shuffle_prefix(a, x, 2, 25)
    core.shuffle_prefix(b, y, 2, 25)
    assert x.tolist() == y.tolist() != list(range(52))


def test_the_parallel_games_refuse_bad_points_and_no_chunks():
    """In a subprocess, as the kernel would run there (GNU OpenMP): zero chunks divided by
    zero, a negative count left the scores as ``np.empty`` left them."""
    code = (
        "import json, numpy as np\n"
        "from pokersquares.errors import PokerSquaresError\n"
        "from pokersquares.kernels import random_games_parallel\n"
        "pts = np.array([0, 2, 5, 10, 15, 20, 25, 50, 75, 100])\n"
        "out = []\n"
        "for args in ((10, 1, pts[:2], 2), (10, 1, pts, 0), (10, 1, pts, -3), (10, 1, pts, 2.0)):\n"
        "    try:\n"
        "        out.append(['ran', random_games_parallel(*args).tolist()])\n"
        "    except PokerSquaresError as e:\n"
        "        out.append([type(e).__name__, str(e)])\n"
        "print(json.dumps(out))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    points, *chunks = json.loads(proc.stdout.splitlines()[-1])
    assert points[0] == "InvalidPointSystemError", points
    assert all(kind == "PokerSquaresError" and "number of chunks" in message for kind, message in chunks), chunks
