"""What the Results page shows of the result store (runs, tournaments, their scores),
and the games people play in the browser, recorded there as player ``human``
(:class:`GameRecorder`).

Each call opens the store for itself (SQLite connections belong to one thread),
read-only where it only reads, so the page can browse a store that a run is still
writing to.
"""

from __future__ import annotations

import logging
import sqlite3
import tempfile
import threading
from contextlib import closing
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import IO, Iterable

import numpy as np

from ..errors import PokerSquaresError
from ..game import EMPTY, NUM_CELLS, SIZE
from ..harness.compare import games_summary, records_summary
from ..harness.hands_made import GridSet, grid_set, mix_summary
from ..harness.store import GameRecord, ResultStore, StoreError, no_room, probe
from ..harness.tournament import table_from_store
from ..points import PointSystem
from .sessions import HUMAN, WebGame, grid_view, point_system_view

__all__ = ["ResultNotFoundError", "ExportRoomError", "HUMAN", "RUNS_PAGE", "RUNS_PAGE_MAX", "TOURNAMENTS_SHOWN",
           "results_index", "run_detail", "tournament_detail", "summary", "FinishedGame", "finished_game",
           "record_human_game", "GameRecorder", "RECORD_WAIT_S", "export_csv", "holds_nothing"]

GRID_CHUNK = 4096  # a run's games whose grids are classified at once
SPOOL_BYTES = 1 << 20  # an export held in memory up to this size, then in a temporary file
# The runs the index gives at once, unless asked for fewer or more (up to the most): a
# person's every game is a run of its own, and all of 20,000 made 6.7 MB to send and show.
RUNS_PAGE = 200
RUNS_PAGE_MAX = 1000
# The newest tournaments the index gives; the others open by their id. Each is a
# ``pokersquares tournament`` command, never a game in the browser: they stay few.
TOURNAMENTS_SHOWN = 500
# The most seconds a person's finished game waits for another process's write to the
# store to end (a command waits 30 s): the person waits for the answer to their last
# card meanwhile, and a game the store cannot take is kept and written later anyway.
RECORD_WAIT_S = 2.0


class ResultNotFoundError(PokerSquaresError):
    """A run or tournament the store does not hold."""


class ExportRoomError(PokerSquaresError):
    """The server's temporary folder cannot hold an export (a full disk): the server's
    trouble, not the request's."""


def summary(records: list[GameRecord]) -> dict:
    """Mean with its standard error, spread, extremes, time and penalties of some games."""
    return records_summary(records)


def _open(path: Path) -> ResultStore:
    if not path.is_file():
        raise ResultNotFoundError(f"no result store at {path}")
    return ResultStore(path, readonly=True)


def holds_nothing(path: Path) -> bool:
    """An empty file, or an SQLite file with nothing in it: a store not made yet (the
    server makes it when it records a game)."""
    try:
        return probe(path) == "new"
    except Exception:  # noqa: BLE001 - anything else is said when the store is opened
        return False


def results_index(path: Path | None, records_games: bool = False, *, limit: int = RUNS_PAGE,
                  before: int | None = None) -> dict:
    """A page of runs, the newest tournaments and the person's games per point system,
    or why there are none (``records_games``: the server records games played in the
    browser there).

    ``runs``: the newest ``limit`` runs with ids below ``before`` (all when None), oldest
    first; ``next_before``: the ``before`` of the next older page, None after the
    oldest; ``runs_total``: every run of the store. ``humans``: the games of player
    ``human`` per system (``system_name``, ``games``, ``mean``, ``best``), all of them;
    ``people``: the same per the name each person gave too (``name``), for those who did.
    ``tournaments``: the newest :data:`TOURNAMENTS_SHOWN` of ``tournaments_total``."""
    if not 1 <= limit <= RUNS_PAGE_MAX:
        raise PokerSquaresError(f"a page holds 1 to {RUNS_PAGE_MAX} runs, got {limit}")
    if path is None:
        return {"available": False, "path": None, "detail": "this server was started without a result store"}
    if not path.is_file() or holds_nothing(path):
        return {"available": False, "path": str(path),
                "detail": f"no result store at {path} yet: "
                          + ("finish a game on the Play tab (it is recorded there), " if records_games else "")
                          + "record some games with 'pokersquares run' or 'pokersquares tournament', "
                          "or start the server with --db FILE"}
    with _open(path) as store:
        runs = store.runs(before=before, limit=limit + 1)  # one more: is there an older page?
        runs_total = store.count_runs()
        humans = store.scores_by_system(HUMAN)
        # Per name, where people gave one (a class's students): none when nobody did.
        people = [row for row in store.scores_by_system(HUMAN, by_name=True) if row["name"] != HUMAN]
        tournaments = store.tournaments()
    older = len(runs) > limit
    runs = runs[1:] if older else runs
    tournaments_total = len(tournaments)
    tournaments = tournaments[-TOURNAMENTS_SHOWN:]
    for t in tournaments:
        t["system_names"] = [s["name"] for s in t.pop("systems")]
    return {"available": True, "path": str(path), "runs": [r.to_json() for r in runs], "runs_total": runs_total,
            "next_before": runs[0].run_id if older else None, "humans": humans, "people": people,
            "tournaments": tournaments, "tournaments_total": tournaments_total}


def _final_cells(record: GameRecord) -> list[int]:
    cells = [EMPTY] * NUM_CELLS
    for card, row, col in record.placements:
        cells[row * SIZE + col] = card
    return cells


class _RunGames:
    """A run's games read once, one at a time (held whole, placements and all, a run of
    300,000 games took 1 GB): their scores, seeds, times and penalties, the best
    game (the first of the highest score), and their grids classified by hand type
    :data:`GRID_CHUNK` at a time (what ``mix_summary(grid_set(...))`` is given)."""

    def __init__(self, label: str, points, records: Iterable[GameRecord]) -> None:
        self.scores: list[int] = []
        self.seeds: list[int] = []
        self.seconds: list[float] = []
        self.penalties = 0
        self.best: GameRecord | None = None
        parts: list[GridSet] = []
        records = iter(records)
        while chunk := list(islice(records, GRID_CHUNK)):
            for r in chunk:
                self.scores.append(r.score)
                self.seeds.append(r.seed)
                self.seconds.append(r.decision_s)
                self.penalties += bool(r.penalty)
                if self.best is None or r.score > self.best.score:
                    self.best = r
            part = grid_set(label, points, chunk)
            # Classified while its grids are at hand; card ids and line counts (at most
            # 10) take a byte each, not eight.
            part.counts = part.counts.astype(np.int8)
            part.grids = part.grids.astype(np.int8)
            parts.append(part)
        if len(parts) < 2:
            self.grid_set = parts[0] if parts else grid_set(label, points, [])
            return
        self.grid_set = GridSet(label, tuple(points), np.concatenate([p.seeds for p in parts]),
                                np.concatenate([p.grids for p in parts]), sum(p.left_out for p in parts),
                                np.concatenate([p.scores for p in parts]))
        self.grid_set.counts = np.concatenate([p.counts for p in parts])  # classified above, chunk by chunk

    def summary(self) -> dict:
        return games_summary(self.scores, self.seconds, self.penalties)


def run_detail(path: Path, run_id: int) -> dict:
    """A run's settings, its scores, their summary and its best game."""
    with _open(path) as store:
        found = store.runs(before=run_id + 1, limit=1)  # by its key, not every run's summary
        if not found or found[0].run_id != run_id:
            raise ResultNotFoundError(f"no run {run_id} in {path}")
        run = found[0]
        games = _RunGames(run.player, run.points, store.iter_games(run_id))
    system = PointSystem(tuple(run.points), run.system_name)
    best = games.best
    best_view = None
    if best is not None and len(best.placements) == NUM_CELLS:
        best_view = grid_view(_final_cells(best), system) | {"seed": best.seed, "seed_text": str(best.seed),
                                                             "game_index": best.game_index}
    return {
        # The seeds as text too: JavaScript's numbers lose digits past 2**53 (a seed may be any long).
        "run": run.to_json() | {"seed_text": str(run.seed), "last_seed_text": str(run.seed + run.games - 1)},
        "system": point_system_view(system),
        "summary": games.summary(),
        "scores": games.scores,
        "seeds": games.seeds,
        "best": best_view,
        # Lines and points per game by hand type (pokersquares compare --hands).
        "hands": mix_summary(games.grid_set),
    }


def tournament_detail(path: Path, tournament_id: int) -> dict:
    """A tournament's table as the contest scored it, with each player's scores per system."""
    with _open(path) as store:
        if tournament_id not in {t["tournament_id"] for t in store.tournaments()}:
            raise ResultNotFoundError(f"no tournament {tournament_id} in {path}")
        info = store.tournament(tournament_id)
        table = table_from_store(store, tournament_id)
        runs = {(tuple(r.points), r.player): r for r in store.runs(tournament_id)}
        systems = [PointSystem.from_json(s) for s in info["systems"]]
        cells: dict[str, dict] = {}
        for system, name in zip(systems, table["systems"]):
            cells[name] = {}
            for player in table["players"]:
                run = runs.get((tuple(system.points), player))
                records = store.games(run.run_id) if run else []
                cells[name][player] = {"run_id": run.run_id if run else None, "scores": [r.score for r in records],
                                       **summary(records)}
    table["cells"] = cells
    table["system_points"] = {name: list(s.points) for s, name in zip(systems, table["systems"])}
    table["seed"] = info["seed"]
    table["seed_text"] = str(info["seed"])
    # The penalised games' deal seeds as text too: JavaScript's numbers lose digits past 2**53.
    table["penalty_reasons_text"] = {s: {p: {why: [str(x) for x in seeds] for why, seeds in reasons.items()}
                                         for p, reasons in row.items()}
                                     for s, row in table["penalty_reasons"].items()}
    table["created"] = info["created"]
    return table


@dataclass(frozen=True)
class FinishedGame:
    """A game a person finished, as it is recorded: its record (timed when it ended), its
    point system, the name recorded with it and the web game's id."""
    record: GameRecord
    system: PointSystem
    name: str
    game_id: str


def finished_game(web_game: WebGame) -> FinishedGame:
    """``web_game``, finished, as it is recorded (its time is the time it took, whenever
    it is written)."""
    with web_game.lock:
        game = web_game.game
        assert game.seed is not None  # a web game is dealt from a seed
        record = GameRecord(0, game.seed, game.score(), [(c, r, k) for c, r, k in game.placements],
                            web_game.seconds_played())
        system = game.point_system
        name = web_game.name or HUMAN  # the person's own name, when they gave one
    return FinishedGame(record, system, name, web_game.id)


def record_human_game(store: ResultStore, finished: FinishedGame) -> int:
    """Record a finished game a person played as a run of one game by player ``human``
    (its own run: a person may play one deal many times), under the name they gave
    (the run's ``player_name``); its run id. Written again after a write that failed
    halfway, it is the same run and game (the run is keyed by the web game's id)."""
    run = store.open_run(HUMAN, finished.name, finished.system, finished.record.seed, 1, 0.0, 0.0,
                         version=f"web:{finished.game_id}")
    store.add_games(run, [finished.record])
    return run


def _wait_for_writes(path: Path) -> None:
    """Wait at most :data:`RECORD_WAIT_S` for another process's write to the store
    ``path`` to end (by taking its write lock, then letting go); sqlite3's error if it
    goes on. A store opened to write waits 30 s, as a command does. Any other fault is
    left for that store to say."""
    if not path.is_file():
        return
    try:
        with closing(sqlite3.connect(path, timeout=RECORD_WAIT_S, isolation_level=None)) as conn:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("ROLLBACK")
    except sqlite3.Error as e:
        if _busy(e):
            raise


def _busy(e: BaseException | None) -> bool:
    """Whether SQLite's error behind ``e`` is a lock another process held past the wait
    (SQLITE_BUSY or SQLITE_LOCKED)."""
    while e is not None and not isinstance(e, sqlite3.Error):
        e = e.__context__  # a StoreError raised in place of sqlite3's
    code = getattr(e, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def _why_not(path: Path, e: BaseException) -> tuple[str, str]:
    """Why the store ``path`` did not take a game: a few words for the page, and what the
    server's console is told besides."""
    room = no_room(path)
    if room is not None:
        return room[0], f"{room[1]} for the server to record it"
    if _busy(e):
        return "the result store is busy", (
            f"another process holds the write lock of {path} (a command stopped with Ctrl-Z, or a program "
            "with changes not saved, such as an SQLite browser)")
    return "the result store could not be written", str(e)


def _games(n: int) -> str:
    return f"{n} finished browser game" + ("" if n == 1 else "s")


class GameRecorder:
    """Records the games people finish in the browser in the result store ``path``, in
    the order they ended. A game the store cannot take (another process holds its write
    lock, a full disk) is kept in memory (:attr:`kept`) and written, before the next
    one, when another game ends and when the server stops (:meth:`close`); each is
    recorded once. The server's console is told what is kept and what is written
    later. Thread-safe: one write at a time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.kept: list[FinishedGame] = []  # oldest first
        self._lock = threading.Lock()

    def record(self, web_game: WebGame) -> str | None:
        """Record a finished game, after those kept before it: None once it is in the
        store, else why not in a few words for the page (it is kept)."""
        finished = finished_game(web_game)
        log = logging.getLogger(__name__)
        with self._lock:
            waiting = len(self.kept)
            self.kept.append(finished)
            why = self._write_kept()
            written = min(waiting, waiting + 1 - len(self.kept))
            if written:
                log.warning("recorded %s that the result store %s could not take before", _games(written), self.path)
            if why is None:
                return None
            r = finished.record
            log.warning("could not record a browser game (seed %s, %s points, player %s): %s: %s; the server keeps "
                        "it in memory and records it when another game ends or when the server stops (%s kept)",
                        r.seed, r.score, finished.name, why[0], why[1], len(self.kept))
            return why[0]

    def close(self) -> int:
        """Write the games kept as the server stops; how many could not be (they are lost
        with the server, and its console says so)."""
        log = logging.getLogger(__name__)
        with self._lock:
            if not self.kept:
                return 0
            waiting = len(self.kept)
            why = self._write_kept()
            if why is None:
                log.warning("recorded %s that the result store %s could not take before", _games(waiting), self.path)
                return 0
            lost = len(self.kept)
            log.warning("%s could not be recorded in %s as the server stopped: %s: %s; %s lost", _games(lost),
                        self.path, why[0], why[1], "it is" if lost == 1 else "they are")
            return lost

    def _write_kept(self) -> tuple[str, str] | None:
        """Write the kept games, oldest first, until one fails: None once all are written,
        else why not (:func:`_why_not`)."""
        try:
            _wait_for_writes(self.path)
            with ResultStore(self.path) as store:
                while self.kept:
                    record_human_game(store, self.kept[0])
                    del self.kept[0]
        except (StoreError, sqlite3.Error, OSError) as e:
            return _why_not(self.path, e)
        return None


def export_csv(path: Path, run_ids: list[int] | None = None) -> tuple[IO[bytes], int]:
    """The games of ``run_ids`` (all when None) as CSV, one row per game, in UTF-8: a file
    at its start, and its size. Written a piece at a time into a temporary file (the
    whole text, then its bytes, took 220 MB of memory for 300,000 games); the
    caller closes it. A missing run, or a store that fails, is an error before any of it
    is sent. Written on one thread: an SQLite connection serves only its own."""
    with _open(path) as store:
        if run_ids is not None:
            missing = sorted(set(run_ids) - {r.run_id for r in store.runs()})
            if missing:
                shown = ", ".join(map(str, missing[:5])) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
                raise ResultNotFoundError(f"no run {shown} in {path}")
        out = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)
        try:
            for piece in store.export_chunks("csv", run_ids):
                out.write(piece.encode("utf-8"))
        except OSError as e:  # past SPOOL_BYTES it is a file in the temporary folder, which may be full
            out.close()
            raise ExportRoomError(f"the server could not hold the export in its temporary folder "
                                  f"{tempfile.gettempdir()} ({e.strerror or e}); free some room there "
                                  "and try again") from None
        except BaseException:
            out.close()
            raise
    size = out.tell()
    out.seek(0)
    return out, size
