"""Tournaments scored exactly as the 2016 contest: per system, every player's total
over the same games, normalised to [0, 1] over the players; a player's tournament
score is the sum of its normalised scores; rank by it."""

from __future__ import annotations

from typing import Callable

from ..points import PointSystem
from .runner import RunSpec, check_backend, record_runs
from .store import GameRecord, ResultStore

__all__ = ["normalize", "tournament_table", "run_tournament", "table_from_store"]


def normalize(totals: dict[str, float]) -> dict[str, float]:
    """``(total - min) / (max - min)`` over the players. When every player has the
    same total the contest formula is 0/0; here they all share the best score, 1."""
    lo, hi = min(totals.values()), max(totals.values())
    if hi == lo:
        return {p: 1.0 for p in totals}
    return {p: (t - lo) / (hi - lo) for p, t in totals.items()}


def tournament_table(players: list[str], systems: list[str], games: int,
                     totals: dict[str, dict[str, float]]) -> dict:
    """The contest's table from per-system totals: normalised scores, sums and ranking."""
    normalized = {s: normalize(totals[s]) for s in systems}
    scores = {p: sum(normalized[s][p] for s in systems) for p in players}
    ranking = sorted(players, key=lambda p: (-scores[p], players.index(p)))
    return {"systems": systems, "players": players, "games": games, "totals": totals,
            "normalized": normalized, "scores": scores, "ranking": ranking}


def _unique_names(systems: list[PointSystem]) -> list[str]:
    names: list[str] = []
    for s in systems:
        name, k = s.name, 2
        while name in names:
            name, k = f"{s.name} ({k})", k + 1
        names.append(name)
    return names


def run_tournament(players: list[str], systems: list[PointSystem], games: int, seed: int, store: ResultStore,
                   *, time_per_game: float = 30.0, prep_time: float = 300.0, workers: int | None = None,
                   on_result: Callable[[str, str, GameRecord], None] | None = None,
                   backend: str = "local", address: str | None = None) -> dict:
    """Play every player on every system (resuming what the store holds) and return the table.

    The local backend plays the runs one after the other; Ray plays them all at once."""
    check_backend(backend, address)
    tid = store.open_tournament(players, systems, games, seed, time_per_game, prep_time)
    names = _unique_names(systems)
    cells = [(sname, player) for sname in names for player in players]
    specs = [RunSpec(player, system, games, seed, time_per_game, prep_time) for system in systems for player in players]
    cb = None if on_result is None else (lambda k, rec: on_result(cells[k][0], cells[k][1], rec))
    results = record_runs(specs, store, workers=workers, tournament_id=tid, on_result=cb, backend=backend,
                          address=address)
    totals: dict[str, dict[str, float]] = {sname: {} for sname in names}
    for (sname, player), (_, records) in zip(cells, results):
        totals[sname][player] = sum(r.score for r in records)
    table = tournament_table(players, names, games, totals)
    table["tournament_id"] = tid
    return table


def table_from_store(store: ResultStore, tournament_id: int) -> dict:
    """The table of a tournament as far as the store holds its games."""
    t = store.tournament(tournament_id)
    systems = [PointSystem.from_json(s) for s in t["systems"]]
    names = _unique_names(systems)
    by_key = {(tuple(r.points), r.player): r for r in store.runs(tournament_id)}
    totals: dict[str, dict[str, float]] = {}
    finished = 0
    for system, sname in zip(systems, names):
        totals[sname] = {}
        for player in t["players"]:
            run = by_key.get((tuple(system.points), player))
            records = store.games(run.run_id) if run else []
            finished += len(records)
            totals[sname][player] = sum(r.score for r in records)
    table = tournament_table(t["players"], names, t["games"], totals)
    table["tournament_id"] = tournament_id
    table["complete"] = finished == t["games"] * len(systems) * len(t["players"])
    return table
