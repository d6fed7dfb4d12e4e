"""Routes of the result store: runs, tournaments, and their games as CSV. Plain
functions: FastAPI runs them in its thread pool, each with its own connection."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Path as PathParam, Query, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from ..errors import PokerSquaresError
from .results import (RUNS_PAGE, RUNS_PAGE_MAX, ExportRoomError, ResultNotFoundError, export_csv, results_index,
                      run_detail, tournament_detail)

__all__ = ["router"]

router = APIRouter(prefix="/api/results")

ROW_ID_MAX = 2 ** 62


def _row_id():
    return PathParam(..., ge=1, le=ROW_ID_MAX)


def _store_path(request: Request) -> Path:
    if request.app.state.store_path is None:
        raise ResultNotFoundError("this server was started without a result store")
    return request.app.state.store_path


@router.get("")
def results(request: Request,
            limit: int = Query(RUNS_PAGE, ge=1, le=RUNS_PAGE_MAX, description="runs in the page: the newest of those asked for"),
            before: int | None = Query(None, ge=1, le=ROW_ID_MAX,
                                       description="only runs with smaller ids (the last page's next_before)")) -> dict:
    """A page of runs (the newest when ``before`` is absent, oldest first within it), the
    person's games per point system, and the newest tournaments."""
    return results_index(request.app.state.store_path, request.app.state.record_path is not None,
                         limit=limit, before=before)


@router.get("/runs/{run_id}")
def run(request: Request, run_id: int = _row_id()) -> dict:
    return run_detail(_store_path(request), run_id)


@router.get("/tournaments/{tournament_id}")
def tournament(request: Request, tournament_id: int = _row_id()) -> dict:
    return tournament_detail(_store_path(request), tournament_id)


def _pieces(file, size: int = 1 << 16):
    """The file's bytes, a piece at a time; the file is closed once they are sent, or
    once the generator is dropped (the client left)."""
    with file:
        while piece := file.read(size):
            yield piece


@router.get("/export.csv")
def export(request: Request,
           run: list[int] | None = Query(None, description="run ids (all when absent)")) -> Response:
    """Every game of the chosen runs, one CSV row per game, sent a piece at a time."""
    for r in run or ():
        if not 1 <= r <= ROW_ID_MAX:
            raise PokerSquaresError(f"a run id is a positive integer up to {ROW_ID_MAX}, got {r}")
    try:
        file, size = export_csv(_store_path(request), run)
    except ExportRoomError as e:  # the server's disk, not the request: not "bad request", not "internal error"
        return JSONResponse({"detail": str(e)}, status_code=503)
    return StreamingResponse(_pieces(file), media_type="text/csv",
                             headers={"Content-Disposition": 'attachment; filename="pokersquares-games.csv"',
                                      "Content-Length": str(size)})
