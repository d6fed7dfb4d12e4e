"""pokersquares: Parameterized Poker Squares as the 2016 EAAI contest ran it.

The core types live in a few modules: :mod:`~pokersquares.cards` (card ids, deals),
:mod:`~pokersquares.hands` (classification), :mod:`~pokersquares.points` (point
systems), :mod:`~pokersquares.game` (grid and game). They know nothing of players.
"""

from .cards import Card, card_name, deal, parse_card, parse_cards
from .errors import (
    IllegalPlacementError, InvalidCardError, InvalidPointSystemError, PokerSquaresError,
)
from .game import Game, Grid
from .hands import HAND_NAMES, HandId, classify
from .points import (
    AMERICAN, BRITISH, PointSystem, contest_systems, parse_point_system, parse_point_systems,
)

__version__ = "0.1.0"

__all__ = [
    "Card", "card_name", "deal", "parse_card", "parse_cards",
    "PokerSquaresError", "InvalidCardError", "InvalidPointSystemError", "IllegalPlacementError",
    "Game", "Grid", "HAND_NAMES", "HandId", "classify",
    "AMERICAN", "BRITISH", "PointSystem", "contest_systems", "parse_point_system", "parse_point_systems",
]
