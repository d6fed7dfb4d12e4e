"""Routes of the perfect-information optimum: a deal's best grid, and the result
store's runs against their deals' optima.

A solve takes seconds of one core, so one runs at a time, each answer is kept in
memory, and (when the server has a result store) written to its ``optima`` table,
where ``pokersquares optimum`` finds it too.
"""

from __future__ import annotations

import threading

from fastapi import APIRouter, Query, Request

from ..errors import PokerSquaresError
from ..optimum import solve_seed
from ..optimum.regret import run_regrets
from ..optimum.store import OptimaStore
from .sessions import SEED_MAX, SEED_MIN, grid_view, parse_system

__all__ = ["router", "OPTIMUM_TIME_S"]

OPTIMUM_TIME_S = 20.0  # per deal; an answer not proven within it says so
_SOLVE_LOCK = threading.Lock()
_CACHE: dict[tuple[int, tuple[int, ...]], dict] = {}

router = APIRouter(prefix="/api/optimum")


def _parse_seed(text: str) -> int:
    try:
        seed = int(text.strip())
    except ValueError:
        raise PokerSquaresError(f"a deal seed is a whole number, got {text!r}") from None
    if not SEED_MIN <= seed <= SEED_MAX:
        raise PokerSquaresError(f"a deal seed is a 64-bit integer, got {seed}")
    return seed


@router.get("")
def optimum(request: Request, seed: str = Query(..., max_length=40), system: str = Query(..., max_length=400)) -> dict:
    """The best grid of the deal's 25 cards under ``system``, its score, a proven upper
    bound and whether it is proven optimal."""
    seed_value = _parse_seed(seed)
    point_system = parse_system(system)
    key = (seed_value, tuple(point_system.points))
    store_path = request.app.state.store_path
    with _SOLVE_LOCK:
        if key not in _CACHE:
            opt = None
            if store_path is not None and store_path.exists():
                with OptimaStore(store_path) as store:
                    opt = store.get(seed_value, point_system.points, time_limit=OPTIMUM_TIME_S)
            if opt is None:
                opt = solve_seed(seed_value, point_system, time_limit=OPTIMUM_TIME_S)
                if store_path is not None:
                    with OptimaStore(store_path) as store:
                        store.put(opt, OPTIMUM_TIME_S)
            view = opt.to_json()
            view["seed"] = str(seed_value)  # JavaScript numbers lose digits past 2**53
            view["view"] = grid_view(opt.grid, point_system)
            _CACHE[key] = view
        return _CACHE[key]


@router.get("/regret")
def regret(request: Request) -> dict:
    """Each run of the result store whose deals have stored optima: its fraction of the
    optimum and its regret, with standard errors."""
    from ..harness.store import ResultStore
    path = request.app.state.store_path
    if path is None or not path.exists():
        return {"runs": []}
    with ResultStore(path, readonly=True) as store:
        runs = store.runs()
    regrets = run_regrets(path, runs)
    return {"runs": [{"run_id": r.run_id, "player": r.player, "system": r.system_name, **regrets[r.run_id]}
                     for r in runs if r.run_id in regrets]}
