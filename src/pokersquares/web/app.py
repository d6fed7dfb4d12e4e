"""The web app: a JSON API over the library and the page that uses it.

``create_app()`` builds a FastAPI (ASGI) app; ``pokersquares serve`` runs it with
uvicorn. Games live in a :class:`~pokersquares.web.sessions.GameStore`, agents in an
:class:`~pokersquares.web.agents.AgentPool`; every request is validated and bad
input gets a 4xx answer with a one-line ``detail``.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Mapping

from fastapi import FastAPI, Path as PathParam, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field

from ..errors import PokerSquaresError
from ..game import NUM_CELLS
from ..hands import HAND_NAMES
from ..points import SPEC_HELP, parse_point_system
from .agents import AgentBusyError, AgentError, AgentPool, AgentPreparing, AgentSpec
from .results import ResultNotFoundError, results_index, run_detail, tournament_detail
from .sessions import (
    SEED_MAX, SEED_MIN, GameConflictError, GameNotFoundError, GameStore, game_view,
    point_system_view, replay_views,
)

__all__ = ["create_app"]

STATIC_DIR = Path(str(resources.files("pokersquares.web") / "static"))

GameId = PathParam(..., pattern=r"^[A-Za-z0-9_-]{8,64}$", description="the game's id")
AgentName = Field(..., min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_.-]+$",
                  description="a registered agent's name")
Seed = Field(None, ge=SEED_MIN, le=SEED_MAX, description="deal seed (random when absent)")


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewGame(_Body):
    system: str = Field("american", min_length=1, max_length=200, description=SPEC_HELP)
    seed: int | None = Seed
    moves: list[int] = Field(default_factory=list, max_length=NUM_CELLS,
                             description="cells already played, to rebuild a game")


class Place(_Body):
    cell: int = Field(..., ge=0, le=NUM_CELLS - 1, description="cell index row*5+col")
    turn: int | None = Field(None, ge=0, le=NUM_CELLS, description="the turn the page shows")


class Think(_Body):
    agent: str = AgentName
    seconds: float = Field(0.5, gt=0, le=60, description="thinking time, at most the server's limit")
    turn: int | None = Field(None, ge=0, le=NUM_CELLS)


class Replay(_Body):
    agent: str = AgentName


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"detail": message}, status_code=status)


def _preparing(p: AgentPreparing) -> JSONResponse:
    return JSONResponse({"status": "preparing", "agent": p.agent, "elapsed": round(p.elapsed, 2),
                         "budget": p.budget, "detail": str(p)}, status_code=202)


def create_app(*, prep_s: float = 5.0, think_s: float = 2.0, game_s: float = 10.0,
               max_games: int = 1000, store_path: str | Path | None = None,
               agents: Mapping[str, AgentSpec] | None = None) -> FastAPI:
    """The web app.

    ``prep_s``: learning budget of an agent per point system; ``think_s``: most seconds
    an agent may think per request; ``game_s``: an agent's clock for a whole replayed
    game; ``max_games``: games held before the least recently used is dropped;
    ``store_path``: the result store the Results page reads; ``agents``: the agents
    a page may use, by name (the registered players by default).
    """
    games = GameStore(max_games)
    pool = AgentPool(agents, prep_s=prep_s, think_s=think_s, game_s=game_s)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        yield
        pool.close()

    app = FastAPI(title="Poker Squares", lifespan=lifespan, docs_url="/api/docs", redoc_url=None,
                  openapi_url="/api/openapi.json")
    app.state.games = games
    app.state.agents = pool
    app.state.store_path = Path(store_path) if store_path is not None else None

    # -- errors ----------------------------------------------------------------
    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for err in exc.errors():
            where = ".".join(str(p) for p in err.get("loc", ()) if p not in ("body", "path", "query"))
            parts.append(f"{where}: {err.get('msg')}" if where else str(err.get("msg")))
        return _error(422, "; ".join(parts) or "invalid request")

    @app.exception_handler(PokerSquaresError)
    async def bad_input(request: Request, exc: PokerSquaresError) -> JSONResponse:
        if isinstance(exc, (GameNotFoundError, ResultNotFoundError)):
            return _error(404, str(exc))
        if isinstance(exc, GameConflictError):
            return _error(409, str(exc))
        if isinstance(exc, AgentBusyError):
            return _error(503, str(exc))
        if isinstance(exc, AgentError):
            return _error(504 if "within" in str(exc) or "ran out" in str(exc) else 500, str(exc))
        return _error(400, str(exc))

    # -- page ------------------------------------------------------------------
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    # The page names its script and style with their modification time, so that a
    # browser never runs an old script against a newer server.
    stamp = str(max(int(p.stat().st_mtime) for p in STATIC_DIR.iterdir()))
    page = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    page = page.replace('/static/app.js"', f'/static/app.js?v={stamp}"').replace(
        '/static/app.css"', f'/static/app.css?v={stamp}"')

    @app.get("/", include_in_schema=False)
    async def index() -> HTMLResponse:
        return HTMLResponse(page, headers={"Cache-Control": "no-cache"})

    # -- configuration ---------------------------------------------------------
    @app.get("/api/config")
    async def config() -> dict:
        return {
            "agents": pool.describe(),
            "hands": list(HAND_NAMES),
            "system_help": SPEC_HELP,
            "limits": {"think_s": think_s, "prep_s": prep_s, "game_s": game_s,
                       "seed_min": SEED_MIN, "seed_max": SEED_MAX},
            "results": app.state.store_path is not None,
        }

    @app.get("/api/systems")
    async def system(spec: str = Query(..., min_length=1, max_length=200)) -> dict:
        return point_system_view(parse_point_system(spec), spec.strip())

    # -- games -----------------------------------------------------------------
    @app.post("/api/games", status_code=201)
    async def new_game(body: NewGame) -> dict:
        return game_view(games.create(body.system, body.seed, body.moves))

    @app.get("/api/games/{game_id}")
    async def get_game(game_id: str = GameId) -> dict:
        return game_view(games.get(game_id))

    @app.post("/api/games/{game_id}/place")
    async def place(body: Place, game_id: str = GameId) -> dict:
        game = games.get(game_id)
        game.place(body.cell, body.turn)
        return game_view(game)

    def _check_think(body: Think) -> None:
        pool.check_name(body.agent)
        if body.seconds > think_s:
            raise PokerSquaresError(f"seconds must be at most {think_s:g} on this server, got {body.seconds:g}")

    async def _advise(game, body: Think):
        grid, card, turn = game.snapshot()
        if card is None:
            raise GameConflictError("the game is over: there is no card to place")
        if body.turn is not None and body.turn != turn:
            raise GameConflictError(f"this request is about turn {body.turn}, but the game is at turn {turn}")
        advice = await pool.advise(body.agent, game.point_system, grid, card, body.seconds)
        return advice, turn

    async def _advice_response(game_id: str, body: Think, play: bool):
        """The agent's advice on the current card (and, with ``play``, its choice played)."""
        _check_think(body)
        game = games.get(game_id)
        try:
            advice, turn = await _advise(game, body)
        except AgentPreparing as p:
            return _preparing(p)
        out = {"turn": turn, "agent": advice.agent, "values": advice.values, "choice": advice.choice,
               "seconds": round(advice.seconds, 3)}
        if play:
            game.place(advice.choice, turn)
            out["game"] = game_view(game)
        return out

    @app.post("/api/games/{game_id}/hint")
    async def hint(body: Think, game_id: str = GameId):
        return await _advice_response(game_id, body, play=False)

    @app.post("/api/games/{game_id}/agent-move")
    async def agent_move(body: Think, game_id: str = GameId):
        """The agent advises on the current card and its choice is played: watching an agent."""
        return await _advice_response(game_id, body, play=True)

    @app.post("/api/games/{game_id}/replay")
    async def replay(body: Replay, game_id: str = GameId):
        """The agent plays the finished game's deal; both games, placement by placement."""
        pool.check_name(body.agent)
        game = games.get(game_id)
        with game.lock:
            if not game.game.done:
                raise GameConflictError("finish the game before replaying its deal with an agent")
            deck, seed, moves = list(game.game.deck), game.game.seed, game.moves
        try:
            agent_moves = await pool.play_deal(body.agent, game.point_system, deck, seed or 0)
        except AgentPreparing as p:
            return _preparing(p)
        player = replay_views(deck, moves, game.point_system)
        agent = replay_views(deck, agent_moves, game.point_system)
        return {"agent": body.agent, "player": player, "agent_steps": agent,
                "player_score": player[-1]["score"], "agent_score": agent[-1]["score"]}

    # -- results -----------------------------------------------------------------
    # Plain functions: FastAPI runs them in its thread pool, each with its own connection.
    def _store_path() -> Path:
        if app.state.store_path is None:
            raise ResultNotFoundError("this server was started without a result store")
        return app.state.store_path

    @app.get("/api/results")
    def results() -> dict:
        return results_index(app.state.store_path)

    @app.get("/api/results/runs/{run_id}")
    def run(run_id: int = PathParam(..., ge=1, le=2 ** 62)) -> dict:
        return run_detail(_store_path(), run_id)

    @app.get("/api/results/tournaments/{tournament_id}")
    def tournament(tournament_id: int = PathParam(..., ge=1, le=2 ** 62)) -> dict:
        return tournament_detail(_store_path(), tournament_id)

    return app
