"""Routes of agents: advice on the current card, an agent's move (watching), a replay
of a finished deal, a review of a finished game, and the preparations under way (with a
way to cancel one)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from ..cards import card_name
from ..errors import PokerSquaresError
from .agents import AgentBusyError, AgentPool, AgentPreparing
from .api_games import GameId, games_of
from .guards import client_of
from .schemas import Cancel, Replay, Think
from .sessions import GameConflictError, game_view, parse_system, replay_views

__all__ = ["router", "pool_of"]

router = APIRouter(prefix="/api")


def pool_of(request: Request) -> AgentPool:
    """The agent pool, once the agents are imported (a cold first start compiles them)."""
    pool = request.app.state.agents
    if not pool.loaded:
        raise AgentBusyError("the agents are still loading (a first start compiles them); try again shortly")
    return pool


def _preparing(p: AgentPreparing) -> JSONResponse:
    return JSONResponse(p.status, status_code=202)


def _check_think(pool: AgentPool, body: Think) -> None:
    pool.check_name(body.agent)
    if body.seconds > pool.think_s:
        raise PokerSquaresError(f"seconds must be at most {pool.think_s:g} on this server, got {body.seconds:g}")


async def _advice(request: Request, game_id: str, body: Think, play: bool):
    """The agent's advice on the current card (and, with ``play``, its choice played)."""
    pool = pool_of(request)
    _check_think(pool, body)
    if not play and not pool.agents[body.agent].advises:
        raise PokerSquaresError(f"{body.agent} plays whole games only (Watch, Replay): it gives no hints")
    game = games_of(request).get(game_id)
    grid, card, turn = game.snapshot()
    if card is None:
        raise GameConflictError("the game is over: there is no card to place")
    if body.turn is not None and body.turn != turn:
        raise GameConflictError(f"this request is about turn {body.turn}, but the game is at turn {turn} "
                                "(played from another tab?); reload to see the game")
    try:
        advice = await pool.advise(body.agent, game.point_system, grid, card, body.seconds, client_of(request))
    except AgentPreparing as p:
        return _preparing(p)
    out = {"turn": turn, "agent": advice.agent, "values": advice.values, "choice": advice.choice,
           "seconds": round(advice.seconds, 3), "asked": advice.asked, "others_waiting": advice.others_waiting}
    if play:
        game.place(advice.choice, turn, by_agent=True)
        out["game"] = game_view(game)
    return out


@router.post("/games/{game_id}/hint")
async def hint(body: Think, request: Request, game_id: str = GameId):
    return await _advice(request, game_id, body, play=False)


@router.post("/games/{game_id}/agent-move")
async def agent_move(body: Think, request: Request, game_id: str = GameId):
    """The agent advises on the current card and its choice is played: watching an agent."""
    return await _advice(request, game_id, body, play=True)


def _finished(request: Request, game_id: str, agent: str, doing: str):
    """The agent pool and the game, once the agent is known and the game finished."""
    pool = pool_of(request)
    pool.check_name(agent)
    game = games_of(request).get(game_id)
    with game.lock:
        if not game.game.done:
            raise GameConflictError(f"finish the game before {doing}")
    return pool, game


@router.post("/games/{game_id}/replay")
async def replay(body: Replay, request: Request, game_id: str = GameId):
    """The agent plays the finished game's deal; both games, placement by placement."""
    pool, game = _finished(request, game_id, body.agent, "replaying its deal with an agent")
    with game.lock:
        deck, seed, moves = list(game.game.deck), game.game.seed, game.moves
    try:
        agent_moves = await pool.play_deal(body.agent, game.point_system, deck, seed or 0, client_of(request))
    except AgentPreparing as p:
        return _preparing(p)
    player = replay_views(deck, moves, game.point_system)
    agent = replay_views(deck, agent_moves, game.point_system)
    return {"agent": body.agent, "player": player, "agent_steps": agent,
            "player_score": player[-1]["score"], "agent_score": agent[-1]["score"]}


@router.post("/games/{game_id}/review")
async def review(body: Replay, request: Request, game_id: str = GameId):
    """The finished game's moves judged by the agent's evaluation: each move's value
    against the agent's best cell, and the points given away (exact over the last cards)."""
    pool, game = _finished(request, game_id, body.agent, "reviewing it")
    with game.lock:
        placements = [(int(card), game.moves[turn]) for turn, (card, _, _) in enumerate(game.game.placements)]
    try:
        judged = await pool.review(body.agent, game.point_system, placements, client_of(request), seed=game.game.seed)
    except AgentPreparing as p:
        return _preparing(p)
    out = {"agent": body.agent, **judged.to_json()}
    for move in out["moves"]:
        move["card_name"] = card_name(move["card"])
    # The grid after each placement (0..25), for showing a move where it was made.
    out["steps"] = replay_views([card for card, _ in placements], [cell for _, cell in placements], game.point_system)
    return out


@router.get("/agents/status")
async def status(request: Request) -> dict:
    """The preparations the server holds: each agent's phase per point system."""
    pool = request.app.state.agents
    return {"loaded": pool.loaded, "preparations": pool.preparations() if pool.loaded else []}


@router.post("/agents/cancel")
async def cancel(body: Cancel, request: Request) -> dict:
    """This page no longer waits for the agent's preparation for the point system."""
    pool = pool_of(request)
    phase = pool.cancel(body.agent, parse_system(body.system), client_of(request))
    return {"agent": body.agent, "phase": phase}
