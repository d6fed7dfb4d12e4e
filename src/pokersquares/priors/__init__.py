"""Priors: TD evaluators learned offline, for the point systems known in advance.

The contest's point systems are unknown until play starts, so ``champion`` learns
everything within the preparation budget. For the systems everyone plays (American and
British) nothing stops a player from learning far longer beforehand; the player
``pretrained`` (:mod:`pokersquares.players.pretrained`) plays from such a prior where
one was learned for the system's points, and is ``champion`` elsewhere. Its figures are
reported apart from ``champion``'s and do not count toward issue 16's targets.

The shipped priors are this package's ``*.npz`` files: TD evaluators as
``pokersquares train --player champion`` saves them (format ``pokersquares-td``), each
naming the points it was learned for. How each was made (learning time, seeds, the
check that picked it) is in docs/results.md ("A prior learned offline"). A folder or file
of one's own (``pretrained:priors=PATH``) replaces them.
"""

from __future__ import annotations

import json
from pathlib import Path


from ..cards import is_integer
from ..errors import PokerSquaresError

__all__ = ["SHIPPED", "Prior", "read_prior", "read_priors", "shipped_priors"]

SHIPPED = Path(__file__).resolve().parent


class Prior:
    """One saved evaluator: its path, the points it was learned for and what its file says of
    its learning (``meta``)."""

    def __init__(self, path: Path, points: tuple[int, ...], meta: dict) -> None:
        self.path, self.points, self.meta = path, points, meta

    @property
    def name(self) -> str:
        return str(self.meta.get("point_system", {}).get("name", self.path.stem))

    def describe(self) -> str:
        """One line: the system, the games it learned from, the file."""
        table = self.meta.get("narl_games_learned")
        td = self.meta.get("td_games_learned")
        parts = [f"{int(table):,} table games" if table is not None else None,
                 f"{int(td):,} TD games" if td is not None else None]
        learned = ", ".join(p for p in parts if p)
        return f"{self.name} prior ({learned}; {self.path.name})" if learned else f"{self.name} prior ({self.path.name})"


def read_prior(path: str | Path) -> Prior:
    """One saved TD evaluator's :class:`Prior`, checked as loading it checks it (the file,
    its format and version: :func:`~pokersquares.evaluators.narl.read_saved`; its table,
    weights and settings: :func:`~pokersquares.evaluators.td.check_saved`) and to name
    the ten points its table was learned for, or one
    :class:`~pokersquares.errors.PokerSquaresError`: a player is built with its priors
    read, so a bad one is said before any game is played."""
    from ..evaluators.narl import read_saved
    from ..evaluators.td import FORMAT, VERSION, check_saved

    path = Path(path)
    meta, arrays = read_saved(path, FORMAT, VERSION, "TD evaluator")
    check_saved(path, meta, arrays)
    # The games its table learned from, as the table's own (checked) meta says: a figure
    # of the outer meta's was taken unchecked, and describing the prior failed every game.
    meta["narl_games_learned"] = json.loads(str(arrays["narl_meta"]))["games_learned"]
    # The points it is picked by are those it plays with (its table's, as loading it gives
    # them); the point system the file names must be the same. A file naming others was
    # picked by the named points and played with its table's, silently.
    learned = tuple(int(p) for p in arrays["points"])  # ten integers in range: check_saved
    system = meta.get("point_system")
    named = system.get("points") if isinstance(system, dict) else None
    if named is None:
        raise PokerSquaresError(f"prior {path}: its file does not say which points it was learned for")
    if not isinstance(named, list) or len(named) != 10 or not all(is_integer(p) for p in named):
        raise PokerSquaresError(f"prior {path}: its points are not ten integers")
    if tuple(named) != learned:
        raise PokerSquaresError(f"prior {path}: its file names points {list(named)}, but its table was learned "
                                f"for {list(learned)}")
    return Prior(path, learned, meta)


def read_priors(where: str | Path | None = None) -> dict[tuple[int, ...], Prior]:
    """The priors in ``where`` (a saved evaluator, or a folder of them: its ``*.npz``
    files), by the points each was learned for; the shipped ones when ``where`` is None.
    Every file is checked (format, points, no two for the same points) before any is
    used; a problem is one :class:`~pokersquares.errors.PokerSquaresError`."""
    if where is not None and not str(where).strip():  # Path("") is the current folder: its files were read as priors
        raise PokerSquaresError("priors= names no file or folder (an empty name)")
    base = SHIPPED if where is None else Path(where)
    if base.is_dir():
        paths = sorted(base.glob("*.npz"))
        if not paths and where is not None:
            raise PokerSquaresError(f"priors folder {base} holds no .npz file")
    elif base.is_file():
        paths = [base]
    else:
        raise PokerSquaresError(f"priors {base}: no such file or folder")
    priors: dict[tuple[int, ...], Prior] = {}
    for path in paths:
        prior = read_prior(path)
        if prior.points in priors:
            raise PokerSquaresError(f"priors {priors[prior.points].path.name} and {path.name} were learned for the "
                                    f"same points {list(prior.points)}; keep one")
        priors[prior.points] = prior
    return priors


def shipped_priors() -> dict[tuple[int, ...], Prior]:
    """The priors that ship with the package, by points."""
    return read_priors(None)
