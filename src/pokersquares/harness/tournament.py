"""Tournaments scored exactly as the 2016 contest: per system, every player's total
over the same games, normalised to [0, 1] over the players; a player's tournament
score is the sum of its normalised scores; rank by it."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable

import numpy as np

from ..cards import as_sequence
from ..errors import PokerSquaresError
from ..points import PointSystem, unique_names
from .registry import canonical_spec, checked_player, one_build_per_spec, spec_identity
from .runner import DEFAULT_MEMORY_MB, RunSpec, check_backend, check_workers, held_spelling, held_spellings, record_runs, run_version
from .spec import check_saved_states
from .store import GameRecord, ResultStore

__all__ = ["TournamentError", "normalize", "tournament_table", "behind_first", "bootstrap_errors", "run_tournament", "table_from_store"]


# The most bootstrap resamples (each is a table scored again over every system's games).
MAX_RESAMPLES = 100_000


class TournamentError(PokerSquaresError):
    """A tournament without players or point systems."""


def normalize(totals: dict[str, float]) -> dict[str, float]:
    """``(total - min) / (max - min)`` over the players. When every player has the
    same total the contest formula is 0/0; here they all share the best score, 1.
    No players: nothing to normalise, ``{}``."""
    if not totals:
        return {}
    lo, hi = min(totals.values()), max(totals.values())
    if hi == lo:
        return {p: 1.0 for p in totals}
    return {p: (t - lo) / (hi - lo) for p, t in totals.items()}


def tournament_table(players: list[str], systems: list[str], games: int,
                     scores: dict[str, dict[str, list[int]]], resamples: int = 1000,
                     penalties: dict[str, dict[str, int]] | None = None,
                     seeds: dict[str, dict[str, list[int]]] | None = None) -> dict:
    """The contest's table from each player's game scores per system (game ``i`` of every
    player is the same deal, unless ``seeds`` gives each score's deal seed): totals,
    normalised scores, sums and ranking, plus per-system means with standard errors,
    each player's paired gap to the first (:func:`behind_first`) and
    :func:`bootstrap_errors` of the sums, and each cell's count of penalised games
    (``penalties``, zeros if not given). With ``seeds`` (a tournament the store holds in
    part: game 6 may be recorded before game 5) the pairings are on the deals every
    player of the system holds, matched by seed, not by position.
    Raises :class:`TournamentError` when a cell's scores are missing or not numbers."""
    _check_scores(players, systems, scores)
    # Totals and means over every game held; the pairings over the deals all players share.
    paired = scores if seeds is None else {s: _on_common_deals(players, scores[s], seeds.get(s)) for s in systems}
    # Each system's deals paired (by seed; by position without seeds): the bootstrap
    # draws one set for the systems only where they are the same deals.
    deals = None if seeds is None else {s: _common_seeds(players, seeds[s]) for s in systems}
    totals = {s: {p: float(sum(scores[s][p])) for p in players} for s in systems}
    normalized = {s: normalize(totals[s]) for s in systems}
    # Summed exactly rounded: a tie (0.3 + 0.2 + 0.1 against 0.1 + 0.2 + 0.3) is a tie, ranked
    # by the order given, not by the rounding of the order the systems were added in.
    sums = {p: math.fsum(normalized[s][p] for s in systems) for p in players}
    ranking = sorted(players, key=lambda p: (-sums[p], players.index(p)))
    means = {s: {p: _mean_se(scores[s][p]) for p in players} for s in systems}
    return {"systems": systems, "players": players, "games": games, "totals": totals,
            "normalized": normalized, "scores": sums, "ranking": ranking,
            "means": {s: {p: m for p, (m, _) in row.items()} for s, row in means.items()},
            "mean_se": {s: {p: se for p, (_, se) in row.items()} for s, row in means.items()},
            "penalties": {s: {p: (penalties or {}).get(s, {}).get(p, 0) for p in players} for s in systems},
            "behind_first": {s: behind_first(players, paired[s], _first(players, scores[s])) for s in systems},
            **bootstrap_errors(players, systems, paired, ranking[0] if players else None, resamples, deals=deals)}


def _on_common_deals(players: list[str], row: dict, seeds: dict | None) -> dict:
    """Per player of one system, its scores on the deals every player holds, in seed order
    (``seeds``: each player's deal seed of each score)."""
    by_seed = {}
    for p in players:
        held = seeds.get(p) if isinstance(seeds, dict) else None
        if held is None or len(held) != len(row[p]):
            raise TournamentError(f"the seeds of {p!r} are one deal seed per score")
        by_seed[p] = dict(zip((int(x) for x in held), row[p]))
    common = _common_seeds(players, seeds) if isinstance(seeds, dict) else []  # no players: no seeds to share
    return {p: [by_seed[p][k] for k in common] for p in players}


def _common_seeds(players: list[str], seeds: dict) -> list[int]:
    """The deal seeds every player of one system holds, in order (``seeds``: each player's,
    checked by :func:`_on_common_deals`)."""
    return sorted(set.intersection(*(set(int(x) for x in seeds[p]) for p in players))) if players else []


def _first(players: list[str], scores: dict[str, list[int]]) -> str | None:
    """The system's first: the highest total (a tie goes to the player listed first)."""
    return max(players, key=lambda p: (sum(scores[p]), -players.index(p))) if players else None


def _check_scores(players: list[str], systems: list[str], scores) -> None:
    """Every (system, player) cell of ``scores`` there, a sequence of numbers."""
    for s in systems:
        row = scores.get(s) if isinstance(scores, dict) else None
        if not isinstance(row, dict):
            raise TournamentError(f"no scores for point system {s!r}")
        for p in players:
            cell = row.get(p)
            if cell is None:
                raise TournamentError(f"no scores for player {p!r} on point system {s!r}")
            try:
                values = None if isinstance(cell, (str, bytes)) else list(cell)
            except TypeError:  # one number, not a list of them
                values = None
            if values is None or not all(
                    isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)
                    and np.isfinite(x) for x in values):
                raise TournamentError(f"the scores of {p!r} on {s!r} are a list of finite numbers, got {cell!r:.60}")


def behind_first(players: list[str], scores: dict[str, list[int]], first: str | None = None) -> dict:
    """One system's first (the highest total; a tie goes to the player listed first) and,
    for every player, its mean minus the first's and the standard error of that paired
    difference (game ``i`` of every player is the same deal, so the differences are taken
    game by game), and ``close``: whether it is the first, level with it or behind it by
    at most one paired standard error (issue 16's tournament target). A player's entry
    is None when the players have not all played the same number of games (at least
    two) on the system. ``first``: the first by the totals of every game held (a table
    whose ``scores`` here are those of the deals all players share), else by these."""
    lengths = {len(scores[p]) for p in players}
    if not players or len(lengths) != 1 or lengths.pop() < 2:
        return {"first": None, "players": {p: None for p in players}}
    if first is None:
        first = _first(players, scores)
    assert first is not None  # there are players
    out = {}
    for p in players:
        d = np.asarray(scores[p], dtype=np.float64) - np.asarray(scores[first], dtype=np.float64)
        diff, se = float(d.mean()), float(d.std(ddof=1) / np.sqrt(d.size))
        out[p] = {"diff": diff, "se": se, "close": diff >= -se}
        if math.isclose(diff, -se, rel_tol=1e-9, abs_tol=1e-12):  # on the line, rounding decided it
            out[p]["close"] = _within_one_se(scores[p], scores[first])
    return {"first": first, "players": out}


def _within_one_se(a: list, b: list) -> bool:
    """Whether the mean of ``a - b`` (paired) is at least minus its standard error, in exact
    arithmetic. With ``t`` and ``q`` the sum and the sum of squares of the ``n`` differences,
    ``t / n >= -sqrt((n q - t²) / (n² (n - 1)))`` is ``t >= 0 or t² <= q``. In floats, a
    player behind on one deal alone and level on the others (exactly one SE behind: mean
    ``-x / n``, SE ``x / n``) was counted out for about a third of such deals by rounding."""
    d = [_exact(x) - _exact(y) for x, y in zip(a, b)]
    t = sum(d)
    return t >= 0 or t * t <= sum(x * x for x in d)


def _exact(x) -> int | Fraction:
    """A score as an exact number: an integer as it is, a float as the fraction it holds."""
    return int(x) if isinstance(x, (int, np.integer)) else Fraction(float(x))


def _mean_se(scores: list[int]) -> tuple[float | None, float | None]:
    n = len(scores)
    if n == 0:
        return None, None
    return float(np.mean(scores)), float(np.std(scores, ddof=1) / np.sqrt(n)) if n > 1 else None


def bootstrap_errors(players: list[str], systems: list[str], scores: dict[str, dict[str, list[int]]],
                     leader: str | None, resamples: int = 1000, seed: int = 0,
                     deals: dict[str, list[int]] | None = None) -> dict:
    """Standard errors of the tournament scores by the bootstrap: the deals are
    resampled with replacement, whole deals at a time (every player played the same
    deals, so the comparison stays paired), and the table is scored again. Game ``i``
    is one deal on every system (``deals``: each system's deal seed of each game, where
    they may differ), so where every system holds the same deals one draw of deals
    serves them all (a deal good for a player on one system is
    likely good on another: drawn apart, that was lost). ``score_se[p]`` is the spread
    of ``p``'s sum; ``gap_se[p]`` that of the leader's sum minus ``p``'s, the figure to
    judge whether ``p`` is really behind. Systems on which the players have not all
    played the same number of games, at least two, are left out; with none left there
    are no standard errors (not ± 0)."""
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples > MAX_RESAMPLES:
        raise TournamentError(f"resamples is a whole number up to {MAX_RESAMPLES:,}, got {resamples!r}")
    kept = []
    for s in systems:
        lengths = {len(scores[s][p]) for p in players}
        n = lengths.pop() if lengths else 0
        if not lengths and n >= 2:
            kept.append((s, n))
    if not players or resamples < 2 or not kept:
        return {"score_se": {}, "gap_se": {}, "resamples": 0}
    rng = np.random.default_rng(seed)
    # One draw for all only where game i is the same deal on every system: a table held in
    # part pairs each system on the deals its players share, and two systems may share as
    # many deals but not the same (drawn as one, deal 3 of one system went with deal 0 of
    # the other, a dependence of deals that are not one).
    shared = len({n for _, n in kept}) == 1
    if deals is not None:
        shared = shared and len({tuple(deals.get(s, ())) for s, _ in kept}) == 1
    draw = rng.integers(kept[0][1], size=(resamples, kept[0][1])) if shared else None
    sums = np.zeros((len(players), resamples))
    for s, n in kept:
        matrix = np.array([scores[s][p] for p in players], dtype=np.float64)  # players x games
        picked = draw if shared else rng.integers(n, size=(resamples, n))
        totals = matrix[:, picked].sum(axis=2)  # players x resamples
        lo, hi = totals.min(axis=0), totals.max(axis=0)
        span = np.where(hi > lo, hi - lo, 1.0)
        sums += np.where(hi > lo, (totals - lo) / span, 1.0)
    assert leader is not None  # there are players: the caller names the leader
    lead = players.index(leader)
    return {"score_se": {p: float(np.std(sums[k], ddof=1)) for k, p in enumerate(players)},
            "gap_se": {p: float(np.std(sums[lead] - sums[k], ddof=1)) for k, p in enumerate(players)},
            "resamples": resamples}


@one_build_per_spec()  # each player built once for the tournament's checks and its runs'
def run_tournament(players: list[str], systems: list[PointSystem], games: int, seed: int, store: ResultStore,
                   *, time_per_game: float = 30.0, prep_time: float = 300.0, workers: int | None = None,
                   on_result: Callable[[str, str, GameRecord], None] | None = None,
                   backend: str = "local", address: str | None = None, memory_mb: int = DEFAULT_MEMORY_MB,
                   retry_penalties: bool = False, secret: str | None = None,
                   on_held: Callable[[str, str, list[GameRecord]], None] | None = None,
                   on_taken: Callable[[list[dict]], None] | None = None) -> dict:
    """Play every player on every system (resuming what the store holds) and return the table.
    ``secret``: the key of every run's player seeds (:class:`RunSpec`), else one each.
    ``on_held(system, player, records)``: a run's games the store already holds (not
    played again), told before any game is played. A cell the tournament has no run for
    takes the games another tournament of the store played with the same player, points,
    deals, limits and code (:meth:`ResultStore.take_runs`: a late entrant or an added
    system plays only its own games); ``on_taken(runs)`` is told them first.

    Every player is built and every run checked before the tournament is recorded or
    a game played. The local backend plays the runs one after the other; Ray plays
    them all at once."""
    check_backend(backend, address)
    players = as_sequence(players, "a tournament's players (player specs)", TournamentError)
    systems = as_sequence(systems, "a tournament's point systems", TournamentError,
                          "parse_point_systems reads text such as 'american,british'")
    if not players or not systems:
        raise TournamentError("a tournament needs at least one player and one point system")
    for player in players:
        if not isinstance(player, str):
            raise TournamentError(f"a tournament's players are player specs (text), got {player!r}")
    for system in systems:
        if not isinstance(system, PointSystem):
            raise TournamentError(f"a tournament's point systems are PointSystems (parse_point_system('american'), "
                                  f"...), got {system!r}")
    # As the runs key them: "random" and "random:" are one player, and a table read back
    # from the store finds each player's runs by this spec.
    players = [canonical_spec(p) for p in players]
    if len({s.points for s in systems}) < len(systems):  # it would count twice in every player's score
        raise TournamentError("a tournament gives the same point values twice")
    if len({spec_identity(p) for p in players}) < len(players):  # x:a=1,b=2 and x:b=2,a=1 too
        raise TournamentError("a tournament lists a player twice")
    names = unique_names(systems)

    def runs_of(players):
        return [RunSpec(player, system, games, seed, time_per_game, prep_time, memory_mb, secret)
                for system in systems for player in players]

    # Each limit checked before anything is built, and then used as the runs hold it: numpy's
    # numbers (a notebook's) failed in the store's key, and games=np.int64(2) was stored as bytes.
    checked = runs_of(players)[0]
    games, seed, time_per_game, prep_time = checked.games, checked.seed, checked.time_per_game, checked.prep_time
    if not isinstance(store, ResultStore):
        raise TournamentError(f"a tournament is recorded in a ResultStore, got {store!r}")
    check_workers(workers)
    for player in players:
        checked_player(player)
    players = _as_entered(players, store, systems, seed, time_per_game, prep_time)
    cells = [(sname, player) for sname in names for player in players]
    specs = runs_of(players)
    check_saved_states(players, systems)
    versions = {player: run_version(player) for player in players}
    tid = store.open_tournament(players, systems, games, seed, time_per_game, prep_time)
    taken = store.take_runs(tid, [(spec.player, spec.point_system, versions[spec.player]) for spec in specs],
                            games, specs[0].time_per_game, specs[0].prep_time, secret,  # as the runs key them
                            spellings={p: held_spellings(store, p, seed, time_per_game, prep_time, tournaments=True)
                                       for p in players})
    if taken and on_taken is not None:
        on_taken(taken)
    cb = None if on_result is None else (lambda k, rec: on_result(cells[k][0], cells[k][1], rec))
    held = None if on_held is None else (lambda k, recs: on_held(cells[k][0], cells[k][1], recs))
    results = record_runs(specs, store, workers=workers, tournament_id=tid, on_result=cb, backend=backend,
                          address=address, retry_penalties=retry_penalties, on_held=held)
    scores: dict[str, dict[str, list[int]]] = {sname: {} for sname in names}
    penalties: dict[str, dict[str, int]] = {sname: {} for sname in names}
    seeds: dict[str, dict[str, list[int]]] = {sname: {} for sname in names}
    reasons: dict[str, dict[str, dict[str, list[int]]]] = {sname: {} for sname in names}
    for (sname, player), (_, records) in zip(cells, results):
        scores[sname][player] = [r.score for r in records]
        seeds[sname][player] = [r.seed for r in records]
        penalties[sname][player] = sum(1 for r in records if r.penalty)
        reasons[sname][player] = _penalty_reasons(records)
    table = tournament_table(players, names, games, scores, penalties=penalties, seeds=seeds)
    table["tournament_id"] = tid
    table["penalty_reasons"] = reasons
    return table


def _as_entered(players: list[str], store: ResultStore, systems: list[PointSystem], seed: int,
                time_per_game: float, prep_time: float) -> list[str]:
    """Each entrant as the store writes it: the same entrant with its parameters in another
    order was another player, its games played again. A tournament of these entrants (so
    written or not), systems and limits gives its own spellings (a command run again after
    a stop resumes it, even where an entrant has no run yet); else each as the store's
    tournaments' runs write it (:func:`held_spelling`)."""
    mine = [spec_identity(p) for p in players]
    held = []
    for entrants in store.tournament_entrants(systems, seed, time_per_game, prep_time):
        try:
            theirs = {spec_identity(p): p for p in entrants}
        except PokerSquaresError:  # an entrant this code no longer knows
            continue
        if sorted(theirs) == sorted(mine) and len(theirs) == len(entrants):
            held.append([theirs[i] for i in mine])
    if held:
        return players if players in held else held[0]
    return [held_spelling(store, p, seed, time_per_game, prep_time, tournaments=True) for p in players]


def _penalty_reasons(records: list[GameRecord]) -> dict[str, list[int]]:
    """Why a cell's games scored the penalty: each reason, most games first, with the deal
    seeds of its games (``play --seed S`` shows one again). The table's penalty counts alone
    left a student scored 0 on a system no way to learn why but an export of every game."""
    found: dict[str, list[int]] = {}
    for r in records:
        if r.penalty:
            found.setdefault(r.penalty, []).append(int(r.seed))
    return dict(sorted(found.items(), key=lambda kv: -len(kv[1])))


def table_from_store(store: ResultStore, tournament_id: int) -> dict:
    """The table of a tournament as far as the store holds its games."""
    t = store.tournament(tournament_id)
    systems = [PointSystem.from_json(s) for s in t["systems"]]
    names = unique_names(systems)
    runs = store.runs(tournament_id)
    # Each player's cells from its newest code (the version of its last run): resumed by
    # other code (an upgrade) and stopped part way, the table mixed the old code's games
    # with the new's, and could call itself complete; a cell the new code has not played
    # again is not played yet.
    newest = {r.player: r.version for r in runs}  # in the order made: the last one's
    by_key = {(tuple(r.points), r.player): r for r in runs if r.version == newest[r.player]}
    scores: dict[str, dict[str, list[int]]] = {}
    penalties: dict[str, dict[str, int]] = {}
    seeds: dict[str, dict[str, list[int]]] = {}
    reasons: dict[str, dict[str, dict[str, list[int]]]] = {}
    finished = 0
    for system, sname in zip(systems, names):
        scores[sname], penalties[sname], seeds[sname], reasons[sname] = {}, {}, {}, {}
        for player in t["players"]:
            run = by_key.get((tuple(system.points), player))
            records = store.games(run.run_id) if run else []
            finished += len(records)
            scores[sname][player] = [r.score for r in records]
            seeds[sname][player] = [r.seed for r in records]
            penalties[sname][player] = sum(1 for r in records if r.penalty)
            reasons[sname][player] = _penalty_reasons(records)
    table = tournament_table(t["players"], names, t["games"], scores, penalties=penalties, seeds=seeds)
    table["tournament_id"] = tournament_id
    table["penalty_reasons"] = reasons
    table["complete"] = finished == t["games"] * len(systems) * len(t["players"])
    return table
