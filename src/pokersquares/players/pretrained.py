"""``pretrained``: ``champion`` playing from a prior learned offline, where one exists.

Issue 16 asks that everything ``champion`` knows of a point system be learned within the
preparation budget, since the contest's systems are unknown in advance; a variant that
starts from an offline-trained prior is welcome as a separately named player, reported
apart. This is that player. For a point system with a prior (:mod:`pokersquares.priors`:
the shipped ones are American and British, each a TD evaluator learned for far longer
than 300 s and picked among several by a greedy check on other deals) it plays
``champion``'s search over the prior and spends none of the preparation budget on
learning; for any other system it is ``champion``, learning from scratch in the budget.

Its use beside the contest: a coach that is at full strength on American or British
the moment it starts, where ``champion`` with the web app's 5 s of preparation is
not (``pokersquares serve``, ``pokersquares review --coach pretrained --prep-time 0``).
Its figures are in docs/results.md ("A prior learned offline").

Options: every option of ``champion`` but ``load`` and ``evaluator`` (a prior is a TD
evaluator; ``load=`` is ``champion``'s way to play one saved state for one system), and
``priors=PATH``: a saved TD evaluator or a folder of them (``pokersquares train
--player champion --out FILE``) used instead of the shipped ones, each for the points
its file names.
"""

from __future__ import annotations

import inspect
from typing import cast

import numpy as np

from .. import progress
from ..errors import PokerSquaresError, UnknownPlayerError
from ..evaluators.td import TdEvaluator
from ..priors import Prior, read_priors
from .catalog import register_player
from .champion import ChampionPlayer, champion

__all__ = ["PretrainedPlayer", "pretrained"]

_NOT_TAKEN = ("load", "evaluator")


class PretrainedPlayer(ChampionPlayer):
    """A :class:`ChampionPlayer` that, for a point system with a prior, plays from the
    prior instead of learning. ``prior``: the prior of the last preparation, or None
    when it learned from scratch."""

    def __init__(self, *args, priors: dict[tuple[int, ...], Prior], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._init_priors(priors)

    def _init_priors(self, priors: dict[tuple[int, ...], Prior]) -> None:
        self.priors = priors
        self.prior: Prior | None = None
        self._learner = cast(TdEvaluator, self.evaluator)  # what learns for a system without a prior
        self._ready: dict[tuple[int, ...], TdEvaluator] = {}

    @classmethod
    def of(cls, player: ChampionPlayer, priors: dict[tuple[int, ...], Prior]) -> "PretrainedPlayer":
        """``player`` (as the ``champion`` factory built it, with every option checked),
        made to play from ``priors``."""
        made = cls.__new__(cls)
        made.__dict__.update(player.__dict__)
        made.name = "pretrained"
        made._init_priors(priors)
        return made

    def _load(self, prior: Prior) -> TdEvaluator:
        """The prior's evaluator, read again from its file: a file replaced since the
        priors were read (trained anew for other points) is refused, not played for
        the points it was picked by."""
        evaluator = TdEvaluator(threads=self._learner.threads).load(prior.path)
        assert evaluator.points is not None  # loaded with its points
        if tuple(int(p) for p in evaluator.points) != prior.points:
            raise PokerSquaresError(f"prior {prior.path} changed since it was read: it now holds an evaluator "
                                    f"learned for points {evaluator.points.tolist()}, not {list(prior.points)}")
        return evaluator

    def warm_up(self) -> None:
        """``champion``'s warm-up, and every prior read into memory (off the clock, as
        compiling is), so that a preparation only picks one."""
        super().warm_up()
        for points, prior in self.priors.items():
            if points not in self._ready:
                self._ready[points] = self._load(prior)

    def prepare(self, budget_s: float) -> None:
        key = tuple(int(p) for p in np.asarray(self.points))
        prior = self.priors.get(key)
        if prior is None:
            self.evaluator, self.prior = self._learner, None
            super().prepare(budget_s)
            return
        evaluator = self._ready.pop(key, None) or self._load(prior)
        self._ready.clear()  # the prepared player is handed to the game workers: only what it plays with
        self.evaluator, self.prior, self.guard = evaluator, prior, None
        progress.report(f"playing from the {prior.describe()}: nothing to learn", force=True)


@register_player("pretrained", "champion's search over a TD evaluator learned offline (shipped: American and "
                 "British) where one exists for the points, else champion learning in the budget; reported "
                 "apart from champion (issue 16); priors=PATH (a saved TD evaluator or a folder of them) and "
                 "champion's options but load= and evaluator=", cores=2)
def pretrained(priors: str | None = None, **options) -> PretrainedPlayer:
    """Build the player: ``champion``'s options are checked by ``champion``; the priors
    are read and checked here, before any game or learning second is spent."""
    accepted = [k for k in inspect.signature(champion).parameters if k not in _NOT_TAKEN]
    for key in options:
        if key not in accepted:
            why = "a prior is the saved state it plays (priors=PATH)" if key in _NOT_TAKEN else \
                f"its parameters: priors, {', '.join(accepted)}"
            raise UnknownPlayerError(f"bad parameters for player 'pretrained': it takes no parameter {key!r}; {why}")
    return PretrainedPlayer.of(champion(**options), read_priors(None if priors is None else str(priors)))
