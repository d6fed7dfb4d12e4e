"""What the paper reproductions share: a row of a table is one harness run.

An experiment lists its rows (a label, the run that measures it and the paper's
figure), plays the runs with :func:`pokersquares.harness.runner.record_runs` (so
every game lands in the result store, a rerun reads them back, and any backend
plays them) and fills each row with the run's mean and standard error. Game ``i``
of a run from seed ``S`` is the contest deal ``deal(S + i)``, so rows compare with
any other harness run on the same seeds.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import asdict, dataclass, field, replace
from typing import Callable, Sequence

from ..errors import PokerSquaresError
from ..harness.player import PREP_MARGIN_S, PREP_MARGIN_SHARE
from ..harness.registry import checked_player, one_build_per_spec
from ..harness.runner import RunSpec, record_runs
from ..harness.store import GameRecord, ResultStore
from ..players.greedy_guard import MIN_BUDGET_S

__all__ = ["Row", "score_stats", "play_runs", "fill_rows", "LEARN_MIN_S", "LearningBudgetError"]

# Below this preparation a learner learns nothing and plays the greedy rule instead
# (players.greedy_guard, below MIN_BUDGET_S of learning): every learning row of an
# experiment (beemo, gettysburg, the matrix) would show the rule's scores under its
# learner's name. The harness keeps back PREP_MARGIN_S and 5 % of a preparation (and the
# time to pickle) for handing the player over, so 0.2 s of learning needs about 0.32 s.
LEARN_MIN_S = round((MIN_BUDGET_S + PREP_MARGIN_S) / (1 - PREP_MARGIN_SHARE) + 0.03, 2)


class LearningBudgetError(PokerSquaresError):
    """A learning budget too small for any table to be learned and played."""


@dataclass
class Row:
    """One figure of a paper's table: the run that measures it and ours beside theirs."""

    label: str
    run: RunSpec
    paper: float | str | None
    games: int = 0
    mean: float = math.nan
    stderr: float = math.nan
    penalties: int = 0
    run_id: int | None = None
    details: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        out = asdict(self)
        out.pop("run")
        return {**out, "spec": self.run.player, "system": self.run.point_system.name,
                "points": list(self.run.point_system.points), "time_per_game": self.run.time_per_game,
                "prep_time": self.run.prep_time, "seed": self.run.seed}


def score_stats(scores: Sequence[float]) -> tuple[float, float]:
    """Mean and its standard error (nan where undefined)."""
    n = len(scores)
    if not n:
        return math.nan, math.nan
    return statistics.fmean(scores), statistics.stdev(scores) / math.sqrt(n) if n > 1 else math.nan


@one_build_per_spec()  # each player built once for this call's checks (record_runs' too)
def play_runs(specs: Sequence[RunSpec], store: ResultStore, *, workers: int | None = None,
              backend: str = "local", address: str | None = None,
              on_result: Callable[[GameRecord], None] | None = None,
              on_held: Callable[[list[GameRecord]], None] | None = None,
              secret: str | None = None) -> dict[RunSpec, tuple[int, list[GameRecord]]]:
    """Record every distinct run (resuming what ``store`` holds): run id and records per spec.
    ``on_held`` is told each run's games the store already holds (not played again).
    ``secret``: the key of every run's player seeds (:class:`RunSpec`), else each spec's own."""
    unique = list(dict.fromkeys(specs))
    for player in dict.fromkeys(s.player for s in unique):
        checked_player(player)  # a parameter the player does not take fails here, before anything runs
    keyed = unique if secret is None else [replace(s, secret=secret) for s in unique]
    results = record_runs(keyed, store, workers=workers, backend=backend, address=address,
                          on_result=None if on_result is None else (lambda _k, rec: on_result(rec)),
                          on_held=None if on_held is None else (lambda _k, recs: on_held(recs)))
    return dict(zip(unique, results))


def fill_rows(rows: Sequence[Row], store: ResultStore, **play) -> list[Row]:
    """Play the rows' runs (``play``: the options of :func:`play_runs`) and fill in our figures."""
    results = play_runs([r.run for r in rows], store, **play)
    for row in rows:
        run_id, records = results[row.run]
        row.run_id = run_id
        row.games = len(records)
        row.mean, row.stderr = score_stats([r.score for r in records])
        row.penalties = sum(1 for r in records if r.penalty)
    return list(rows)
