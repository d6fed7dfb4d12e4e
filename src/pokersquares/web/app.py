"""The web app: a JSON API over the library and the page that uses it.

``create_app()`` builds a FastAPI (ASGI) app; ``pokersquares serve`` runs it with
uvicorn. Games live in a :class:`~pokersquares.web.sessions.GameStore`, agents in an
:class:`~pokersquares.web.agents.AgentPool`; the routes are in ``api_games``,
``api_agents`` and ``api_results``; ``guards`` limits bodies, and the time they take
to arrive, and checks the Host header. Every request is validated and bad input gets
a 4xx answer with a one-line ``detail``.
"""

from __future__ import annotations

import asyncio
import html
import threading
import time
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from .. import __version__
from ..errors import PokerSquaresError
from ..hands import HAND_NAMES
from ..points import SPEC_HELP
from . import api_agents, api_games, api_optimum, api_results
from .agents import (AgentBusyError, AgentError, AgentPool, AgentSpec, AgentTimeoutError, Preparation,
                     TooManyRequestsError)
from .api_optimum import OptimumBusyError, OptimumSolver
from .guards import LOOPBACK_NAMES, MAX_BODY_BYTES, READ_S, BodyLimit, BodyTimeout, HostCheck
from .results import GameRecorder, ResultNotFoundError
from .schemas import SEED_MESSAGE
from .sessions import NAME_MAX, SEED_MAX, SEED_MIN, GameConflictError, GameNotFoundError, GameStore, parse_system

__all__ = ["create_app"]

STATIC_DIR = Path(str(resources.files("pokersquares.web") / "static"))


def create_app(*, prep_s: float = 5.0, think_s: float = 2.0, game_s: float = 10.0,
               max_games: int = 1000, store_path: str | Path | None = None,
               agents: Mapping[str, AgentSpec] | Callable[[], Mapping[str, AgentSpec]] | None = None,
               hosts: Iterable[str] = LOOPBACK_NAMES,
               warm: Sequence[str] = (), on_event: Callable[[str], None] | None = None,
               record_games: bool = True, max_body: int = MAX_BODY_BYTES, read_s: float = READ_S,
               compile_processes: int = 0) -> FastAPI:
    """The web app.

    ``prep_s``: learning budget of an agent per point system; ``think_s``: most seconds
    an agent may think per request; ``game_s``: an agent's clock for a whole replayed
    game; ``max_games``: games held before the least recently used is dropped;
    ``store_path``: the result store the Results page reads (and, with
    ``record_games``, where games played in the browser are recorded as ``human``, by
    ``app.state.recorder``, which keeps those the store cannot take and writes them later);
    ``agents``: the agents a page may use, by name, or a function returning them
    (the registered players by default), called in the background at start; ``hosts``: the names the server answers
    to; ``warm``: point system specs every agent prepares for at start, with
    progress told to ``on_event``; ``compile_processes``: processes in which the
    registered agents' kernels are compiled at start, with or without ``warm`` (0: each
    agent's first preparation compiles them, in the server's process, one agent at a
    time); ``max_body``: the largest request body in bytes; ``read_s``: the most seconds
    a request's body may take to arrive (408 past it).
    """
    warm_systems = [parse_system(spec) for spec in warm]  # bad specs fail before the server starts
    pool = AgentPool(agents, prep_s=prep_s, think_s=think_s, game_s=game_s)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        loader = threading.Thread(target=_load_and_warm, args=(pool, warm_systems, on_event, compile_processes),
                                  name="agent-loader", daemon=True)
        loader.start()
        yield
        pool.close()
        app.state.optimum.close()
        if app.state.recorder is not None:  # the games the store could not take yet
            await asyncio.to_thread(app.state.recorder.close)

    app = FastAPI(title="Poker Squares", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url="/api/openapi.json")
    app.state.games = GameStore(max_games)
    app.state.agents = pool
    app.state.optimum = OptimumSolver()
    app.state.store_path = Path(store_path) if store_path is not None else None
    app.state.record_path = app.state.store_path if record_games else None
    app.state.recorder = GameRecorder(app.state.record_path) if app.state.record_path is not None else None
    app.state.limits = {"think_s": think_s, "prep_s": prep_s, "game_s": game_s,
                        "seed_min": SEED_MIN, "seed_max": SEED_MAX}

    app.add_middleware(BodyLimit, max_bytes=max_body)
    app.add_middleware(BodyTimeout, seconds=read_s)
    app.add_middleware(HostCheck, hosts=list(hosts))  # outermost: checked first
    _add_error_handlers(app)
    app.include_router(api_games.router)
    app.include_router(api_agents.router)
    app.include_router(api_results.router)
    app.include_router(api_optimum.router)
    _add_config(app)
    _add_page(app)
    return app


def _load_and_warm(pool: AgentPool, systems: list, on_event: Callable[[str], None] | None,
                   compile_processes: int = 0) -> None:
    """Import the agents (compiling on a cold cache), compile their kernels in
    ``compile_processes`` processes (if at least 1), then prepare each for ``systems``,
    telling ``on_event`` how it goes. With no systems the kernels are still compiled
    aside, on every core the processes have, so that an agent's first preparation loads
    them from numba's cache instead of compiling them in the server's process first."""
    say = on_event or (lambda _message: None)
    start = time.monotonic()
    try:
        agents = pool.agents
    except Exception as e:  # noqa: BLE001 - the server keeps serving games without agents
        say(f"the agents could not be loaded: {type(e).__name__}: {e}")
        return
    if not systems and compile_processes < 1:
        return
    total = len(agents) * len(systems)
    say(f"loaded {len(agents)} agents in {time.monotonic() - start:.1f} s; "
        + (f"preparing them for {', '.join(s.name for s in systems)} in the background" if systems
           else "compiling their kernels in the background"))
    done = []
    lock = threading.Lock()

    def ready(prep: Preparation) -> None:
        if pool.closed:  # the server is stopping: its console says so, not each agent
            return
        with lock:
            done.append(prep)
            n = len(done)
        what = {"ready": "ready", "failed": f"FAILED: {prep.error}", "cancelled": "cancelled"}.get(prep.phase, prep.phase)
        say(f"[{n}/{total}] {prep.agent} on {prep.point_system.name}: {what} after {time.monotonic() - start:.1f} s")
        if n == total:
            say(f"all agents prepared in {time.monotonic() - start:.1f} s")

    if compile_processes < 1:
        pool.warm(systems, ready)
        return
    # Compiling holds the interpreter's lock, so the preparation threads compile one
    # agent at a time: compile in processes instead (one per core, agents sharing an
    # evaluator together), and prepare each agent as soon as its kernels are in
    # numba's cache, where loading them takes a fraction of a second.
    from ..harness.registry import list_players
    from ..harness.warm_up import warm_up_players

    registered = {info.name for info in list_players()}
    compiled = [name for name in agents if name in registered]
    for name in agents:
        if name not in registered:  # e.g. a contest Java player: nothing to compile
            pool.warm_agent(name, systems, ready)

    def compiled_one(name: str, n: int, of: int) -> None:
        if pool.closed:
            return
        say(f"kernels of {name} ready ({n}/{of} agents, {time.monotonic() - start:.1f} s)")
        pool.release(name)
        pool.warm_agent(name, systems, ready)
        if n == of and not systems:
            say(f"all agents compiled in {time.monotonic() - start:.1f} s")

    pool.hold(compiled)  # a page's request meanwhile waits for the kernels, not compiles them again
    try:
        warm_up_players(compiled, processes=compile_processes, on_ready=compiled_one)
    except Exception as e:  # noqa: BLE001 - the preparations compile in process instead
        say(f"compiling in separate processes failed ({type(e).__name__}: {e}); compiling here")
        for name in compiled:
            pool.release(name)
        pool.warm(systems, ready)


def _add_error_handlers(app: FastAPI) -> None:
    def error(status: int, message: str) -> JSONResponse:
        return JSONResponse({"detail": message}, status_code=status)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for err in exc.errors():
            if err.get("type") == "json_invalid":  # its loc is a position in the body, not a field
                where = err.get("loc", ("body", "?"))[-1]
                reason = err.get("ctx", {}).get("error", err.get("msg"))
                parts.append(f"the request body is not valid JSON (at character {where}: {reason})")
                continue
            loc = [str(p) for p in err.get("loc", ()) if p not in ("body", "path", "query")]
            where = ".".join(loc)
            message = str(err.get("msg"))
            if loc[:1] == ["seed"]:
                message = SEED_MESSAGE
            elif loc[:1] == ["name"] and err.get("type") == "string_too_long":  # not the body's own cap
                message = f"a name has at most {NAME_MAX} characters; shorten it"
            parts.append(f"{where}: {message}" if where else message)
        return error(422, "; ".join(dict.fromkeys(parts)) or "invalid request")

    @app.exception_handler(PokerSquaresError)
    async def bad_input(request: Request, exc: PokerSquaresError) -> JSONResponse:
        if isinstance(exc, (GameNotFoundError, ResultNotFoundError)):
            return error(404, str(exc))
        if isinstance(exc, GameConflictError):
            return error(409, str(exc))
        if isinstance(exc, TooManyRequestsError):
            return error(429, str(exc))
        if isinstance(exc, (AgentBusyError, OptimumBusyError)):
            return error(503, str(exc))
        if isinstance(exc, AgentError):
            return error(504 if isinstance(exc, AgentTimeoutError) else 500, str(exc))
        return error(400, str(exc))

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        # A failure nobody foresaw still answers in one line of JSON; the server's
        # console gets the traceback (Starlette logs it after this answer is sent).
        return error(500, f"internal error: {type(exc).__name__}: {exc}".splitlines()[0])


def _add_config(app: FastAPI) -> None:
    @app.get("/api/config")
    async def config() -> dict:
        """The agents, hands and limits the page needs. While the agents are still being
        imported (a first start compiles them) ``agents_loading`` is true."""
        pool: AgentPool = app.state.agents
        for _ in range(5):  # on a warm cache the import is quick: wait for it a little
            if pool.loaded:
                break
            await asyncio.sleep(0.1)
        return {
            "agents": pool.describe() if pool.loaded else [],
            "agents_loading": not pool.loaded,
            "hands": list(HAND_NAMES),
            "system_help": SPEC_HELP,
            "limits": app.state.limits,
            "results": app.state.store_path is not None,
            "records_games": app.state.record_path is not None,
            "version": __version__,
        }


def _add_page(app: FastAPI) -> None:
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    # The page names its scripts and style with their modification time, so that a
    # browser never runs an old script against a newer server.
    stamp = str(max(int(p.stat().st_mtime) for p in STATIC_DIR.iterdir()))
    page = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    for name in sorted(p.name for p in STATIC_DIR.iterdir() if p.suffix in (".js", ".css")):
        page = page.replace(f'/static/{name}"', f'/static/{name}?v={stamp}"')

    @app.get("/", include_in_schema=False)
    async def index() -> HTMLResponse:
        return HTMLResponse(page, headers={"Cache-Control": "no-cache"})

    @app.get("/api/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        """The API's routes as a plain page: no scripts or styles from elsewhere, so it
        works offline (FastAPI's own docs page loads its assets from a CDN)."""
        return HTMLResponse(_docs_page(app.openapi()))


def _docs_page(spec: dict) -> str:
    schemas = spec.get("components", {}).get("schemas", {})
    rows = []
    for path, methods in spec.get("paths", {}).items():
        for method, op in methods.items():
            fields = ""
            ref = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {}).get("$ref")
            if ref:
                props = schemas.get(ref.rsplit("/", 1)[-1], {}).get("properties", {})
                fields = "<ul>" + "".join(
                    f"<li><code>{html.escape(k)}</code> {html.escape(v.get('description', v.get('title', '')))}</li>"
                    for k, v in props.items()) + "</ul>"
            params = "".join(f"<li><code>{html.escape(p['name'])}</code> ({p['in']})</li>" for p in op.get("parameters", []))
            rows.append(f"<section><h2><code>{method.upper()} {html.escape(path)}</code></h2>"
                        f"<p>{html.escape(op.get('summary', ''))}</p><p>{html.escape(op.get('description', ''))}</p>"
                        f"{'<ul>' + params + '</ul>' if params else ''}{fields}</section>")
    return ("<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Poker Squares API</title>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            "<style>body{font-family:sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#111;"
            "background:#fff}h2{font-size:1rem;margin-bottom:.2rem}section{border-top:1px solid #ccc}</style></head>"
            "<body><main><h1>Poker Squares API</h1><p>JSON over HTTP; the machine-readable description is "
            "<a href='/api/openapi.json'>/api/openapi.json</a>. Errors answer <code>{\"detail\": \"...\"}</code>.</p>"
            + "".join(rows) + "</main></body></html>")
