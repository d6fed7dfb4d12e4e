"""Routes of games: point systems, new games, placements, the daily deal."""

from __future__ import annotations

from fastapi import APIRouter, Path as PathParam, Query, Request
from starlette.concurrency import run_in_threadpool

from .daily import daily_deal
from .schemas import NewGame, Place
from .sessions import GameStore, WebGame, game_view, parse_system, person_name, point_system_view

__all__ = ["router", "GameId", "games_of"]

router = APIRouter(prefix="/api")

GameId = PathParam(..., pattern=r"^[A-Za-z0-9_-]{8,64}$", description="the game's id")


def games_of(request: Request) -> GameStore:
    return request.app.state.games


async def _record(request: Request, game: WebGame) -> dict:
    """A finished game played by a person goes into the result store as player ``human``:
    for the answer to its last card, whether it did (``recorded``) and why not
    (``record_detail``: the server keeps it and tries again); nothing for any other card."""
    recorder = request.app.state.recorder
    if recorder is None or not game.finished_by_person():
        return {}
    why = await run_in_threadpool(recorder.record, game)
    return {"recorded": why is None, "record_detail": why}


@router.get("/systems")
async def system(spec: str = Query(..., min_length=1, max_length=200)) -> dict:
    return point_system_view(parse_system(spec), spec.strip())


@router.get("/daily")
async def daily(request: Request) -> dict:
    """Today's deal (UTC): the same seed and point system for everyone on a date."""
    return daily_deal()


@router.post("/games", status_code=201)
async def new_game(body: NewGame, request: Request) -> dict:
    return game_view(games_of(request).create(body.system, body.seed, body.moves, body.agent_played, body.name))


@router.get("/games/{game_id}")
async def get_game(request: Request, game_id: str = GameId) -> dict:
    return game_view(games_of(request).get(game_id))


@router.post("/games/{game_id}/place")
async def place(body: Place, request: Request, game_id: str = GameId) -> dict:
    """Place the current card: the game as it is now. The answer to the last card of a
    person's game, on a server that records games, also says whether the game is in the
    result store (``recorded``) and, if not, why (``record_detail``): the server keeps
    it and records it when another game ends or when it stops."""
    game = games_of(request).get(game_id)
    # The name typed after the deal (the page deals one as it opens) is the one recorded:
    # checked before the card is placed, so that a refused name places nothing. A name
    # given empty (or only spaces) is none: the person cleared it, and the game is theirs
    # without a name (not the name they had typed before).
    named = body.name is not None
    name = person_name(body.name) if named else None
    game.place(body.cell, body.turn)
    if named:
        with game.lock:
            game.name = name
    recorded = await _record(request, game)
    return game_view(game) | recorded
