"""The ``optimum`` subcommand: a deal's perfect-information optimum, one deal or many."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from ..cards import card_name, deal, is_card_id
from ..errors import InvalidSeedError, PokerSquaresError
from ..harness.spec import check_seconds
from ..points import SPEC_HELP, integer_or_none
from . import app, fail, point_system


def parse_seeds(text: str) -> list[int]:
    """``7``, ``0..999`` (inclusive) or ``1,5,9``."""
    t = text.strip()

    def whole(part: str) -> int:
        value = integer_or_none(part)
        if value is None:  # int() would take 1_000 and other scripts' digits
            raise InvalidSeedError(f"seeds are an integer, a range A..B or a list A,B,C; got {text!r}")
        return value

    if ".." in t:
        lo, _, hi = t.partition("..")
        a, b = whole(lo), whole(hi)
    else:
        return sorted({whole(p) for p in t.split(",") if p.strip()} or {whole(t)})
    if b < a:
        raise InvalidSeedError(f"empty seed range {text!r}: the end is below the start")
    if b - a >= 1_000_000:
        raise InvalidSeedError(f"seed range {text!r} is too long (at most 1,000,000 seeds)")
    return list(range(a, b + 1))


def _check_seed(seed: int) -> None:
    if not -(1 << 63) <= seed < (1 << 63):
        raise InvalidSeedError(f"a seed is a 64-bit integer, got {seed}")


def _check_grid(opt, db: Optional[Path]) -> None:
    """A stored optimum shown only with a whole grid, its deal's 25 cards: one edited by
    hand was printed (three cards, a card twice) and counted as the deal's optimum, or
    met a bare TypeError."""
    grid = opt.grid
    if not (isinstance(grid, list) and len(grid) == 25 and all(map(is_card_id, grid)) and len(set(grid)) == 25
            and (opt.seed is None or set(grid) == set(deal(opt.seed)[:25]))):
        raise fail(f"{db}: the stored optimum of deal {opt.seed} is damaged (its grid is not the deal's 25 cards); "
                   "not reading it")


def _print_grid(grid: list[int]) -> None:
    for r in range(5):
        typer.echo("  " + " ".join(card_name(c) for c in grid[r * 5:r * 5 + 5]))


def check_optima_store(path: Path) -> None:
    """``--optima``: an existing result store (one line and exit 2 otherwise)."""
    import sqlite3

    from ..optimum.store import OptimaStore
    if not path.exists():
        raise fail(f"no store of optima at {path}")
    if not path.is_file():  # a folder, or a pipe sqlite would wait on for ever
        raise fail(f"{path} is not a result store (not a regular file)")
    try:
        with OptimaStore(path, readonly=True) as store:
            systems = store.systems()
    except sqlite3.DatabaseError as e:
        raise fail(f"{path} is not a result store ({e})") from None
    if not systems:
        raise fail(f"{path} holds no optima (pokersquares optimum --seeds A..B --db {path} solves some)")


@app.command("optimum")
def optimum_cmd(
    seed: Optional[int] = typer.Option(None, "--seed", help="The deal's seed (its first 25 cards)."),
    seeds: Optional[str] = typer.Option(None, "--seeds", help="Many deals: A..B (inclusive) or A,B,C; "
                                        "solved in parallel into the result store (--db)."),
    system: str = typer.Option("american", "--system", "-s", help=SPEC_HELP),
    time_limit: float = typer.Option(60.0, "--time-limit", help="Seconds per deal (at least the local search's first second, which always runs); a limit that runs out "
                                     "reports the best grid found and the bound proven so far."),
    db: Optional[Path] = typer.Option(None, "--db", help="Result store: optima are read from it when present "
                                      "and written to it (needed for --seeds and --check)."),
    workers: int = typer.Option(1, "--workers", "-w", help="Deals solved in parallel (each uses one core)."),
    backend: str = typer.Option("local", "--backend", help="'local' (worker processes) or 'ray' (Ray tasks)."),
    address: Optional[str] = typer.Option(None, "--address", help="With --backend ray: the cluster's head host:port."),
    check: bool = typer.Option(False, "--check", help="Check every stored game against its deal's stored "
                               "optimum: no score may exceed the proven bound."),
    optima: Optional[list[Path]] = typer.Option(None, "--optima", metavar="<path>", help="With --check: read the optima from this "
                                                "store instead of --db; repeat it for one store per point system."),
    json_out: bool = typer.Option(False, "--json", help="Print machine-readable JSON."),
) -> None:
    """The best grid the deal's 25 cards allow if all were known in advance, a proven
    upper bound, and whether the grid is proven optimal."""
    from ..optimum import solve_seed
    from ..optimum.store import solve_seeds

    check_seconds(time_limit, "--time-limit", zero_ok=False)  # finite, positive, not absurd
    if workers < 1:
        raise PokerSquaresError(f"--workers must be at least 1, got {workers}")
    if backend not in ("local", "ray"):
        raise PokerSquaresError(f"--backend is 'local' or 'ray', got {backend!r}")
    if address and backend != "ray":
        raise PokerSquaresError("--address is for --backend ray")
    if optima and not check:
        raise PokerSquaresError("--optima goes with --check (the optima of the games in --db)")
    if check:
        if seed is not None or seeds is not None:
            raise PokerSquaresError("--check reads every stored game of --db; it takes no --seed or --seeds")
        if db is None:
            raise PokerSquaresError("--check needs --db FILE")
        if not db.exists():
            raise PokerSquaresError(f"no result store at {db}")
        for path in optima or ():
            check_optima_store(path)
        return _check(db, optima or [db], json_out)
    if (seed is None) == (seeds is None):
        raise PokerSquaresError("give one of --seed S or --seeds A..B")
    ps = point_system(system)
    if seed is not None:
        _check_seed(seed)
        if workers != 1 or backend != "local":  # one deal: one process solves it
            raise PokerSquaresError(f"{'--workers' if workers != 1 else '--backend'} goes with --seeds (one deal is "
                                    f"solved in this process)")
        stored = []  # whether the optimum was read back from --db, not solved now
        if db is not None:
            opt = solve_seeds([seed], ps, db=db, time_limit=time_limit,
                              on_result=lambda _, cached: stored.append(cached))[seed]
            _check_grid(opt, db)
        else:
            opt = solve_seed(seed, ps, time_limit=time_limit)
        if json_out:
            typer.echo(json.dumps({**opt.to_json(), **({"stored": stored[0]} if stored else {})}))
            return
        status = "proven optimal" if opt.proven else f"not proven (upper bound {opt.bound})"
        # A rerun reads the optimum back: its seconds are those of the solve that stored it.
        took = f"stored in {db} (solved in {opt.seconds:.1f} s)" if stored and stored[0] else f"{opt.seconds:.1f} s"
        typer.echo(f"deal {seed} under {ps.name}: best grid scores {opt.score}, {status}; {took}")
        _print_grid(opt.grid)
        return
    assert seeds is not None  # one of --seed and --seeds, checked above
    seed_list = parse_seeds(seeds)
    for s in seed_list:
        _check_seed(s)
    if db is None:
        raise PokerSquaresError("--seeds needs --db FILE (the optima are stored there, and a rerun resumes)")
    if backend == "ray":
        from ..harness.ray_backend import _ray
        _ray()
    shown = not json_out

    def progress(opt, cached):
        if cached:  # one just solved is whole
            _check_grid(opt, db)
        if shown:
            mark = "stored" if cached else f"{opt.seconds:.1f} s"
            typer.echo(f"deal {opt.seed}: {opt.score} (bound {opt.bound}{', proven' if opt.proven else ''}; {mark})")

    done = solve_seeds(seed_list, ps, db=db, time_limit=time_limit, workers=workers, backend=backend,
                       address=address, on_result=progress)
    summary = summarize(list(done.values()))
    if json_out:
        typer.echo(json.dumps({"system": ps.name, "points": list(ps.points), **summary,
                               "optima": [done[s].to_json() for s in seed_list]}))
        return
    typer.echo(format_summary(ps.name, summary))


def summarize(optima: list) -> dict:
    """Proven fraction, mean optimum ± SE, solve-time distribution and the mean gap."""
    import statistics
    n = len(optima)
    scores = [o.score for o in optima]
    secs = sorted(o.seconds for o in optima)
    mean = statistics.fmean(scores)
    se = statistics.stdev(scores) / n ** 0.5 if n > 1 else None  # one deal has no spread to tell (not "± 0.00")
    return {"deals": n, "proven": sum(o.proven for o in optima), "mean_score": mean, "mean_score_stderr": se,
            "mean_bound": statistics.fmean(o.bound for o in optima),
            "mean_gap": statistics.fmean(o.bound - o.score for o in optima),
            "seconds_mean": statistics.fmean(secs), "seconds_median": statistics.median(secs),
            "seconds_p95": secs[min(n - 1, int(0.95 * n))], "seconds_max": secs[-1], **_cpu(optima)}


def _cpu(optima: list) -> dict:
    """The CPU-time distribution, where every optimum recorded it (older stores did not)."""
    import statistics
    cpu = sorted(o.cpu_seconds for o in optima if o.cpu_seconds is not None)
    if len(cpu) != len(optima) or not cpu:
        return {}
    n = len(cpu)
    return {"cpu_seconds_mean": statistics.fmean(cpu), "cpu_seconds_median": statistics.median(cpu),
            "cpu_seconds_p95": cpu[min(n - 1, int(0.95 * n))], "cpu_seconds_max": cpu[-1]}


def format_summary(name: str, s: dict) -> str:
    return (f"{name}: {s['deals']} deal{'s' if s['deals'] != 1 else ''}, {s['proven']} proven optimal ({100 * s['proven'] / s['deals']:.1f}%); "
            f"mean best grid {s['mean_score']:.2f}"
            + ("" if s["mean_score_stderr"] is None else f" ± {s['mean_score_stderr']:.2f}")
            + f", mean bound {s['mean_bound']:.2f} "
            f"(mean gap {s['mean_gap']:.2f}); seconds per deal: mean {s['seconds_mean']:.1f}, median "
            f"{s['seconds_median']:.1f}, 95th percentile {s['seconds_p95']:.1f}, max {s['seconds_max']:.1f}"
            + (f"; CPU seconds: mean {s['cpu_seconds_mean']:.1f}, median {s['cpu_seconds_median']:.1f}, 95th "
               f"percentile {s['cpu_seconds_p95']:.1f}, max {s['cpu_seconds_max']:.1f}" if "cpu_seconds_mean" in s else ""))


def _check(db: Path, stores: list[Path], json_out: bool) -> None:
    """Every stored game against its deal's optimum in ``stores``."""
    from ..harness.store import ResultStore
    from ..optimum.store import optima_from
    checked = over_bound = beat_best = 0
    problems = []
    with ResultStore(db, readonly=True) as games:
        for run in games.runs():
            # Seeds and scores only: a run's moves (gigabytes for millions of games) are not read.
            records = list(games.iter_games(run.run_id, moves=False))
            known = optima_from(stores, [r.seed for r in records], run.points)
            for r in records:
                opt = known.get(r.seed)
                if opt is None:
                    continue
                checked += 1
                if r.score > opt.bound:
                    over_bound += 1
                    problems.append(f"run {run.run_id} game {r.game_index} (deal {r.seed}): score {r.score} "
                                    f"> proven bound {opt.bound}")
                elif r.score > opt.score:
                    beat_best += 1
    if json_out:
        typer.echo(json.dumps({"checked": checked, "over_bound": over_bound, "beat_best_found": beat_best,
                               "problems": problems}))
    else:
        typer.echo(f"{checked} stored games have their deal's optimum stored: {over_bound} score above the proven "
                   f"bound, {beat_best} above the best grid found")
        for p in problems:
            typer.echo("  " + p)
    if over_bound:
        raise typer.Exit(1)
