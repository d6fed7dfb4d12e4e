"""``pokersquares experiment ...``: reproductions of the papers' tables.

Each command lists its table's rows as harness runs (``pokersquares.experiments``),
plays them into the result store like ``run`` (``--db``, ``--workers``,
``--backend ray``; rerunning resumes) and prints our figures beside the paper's.
"""

from __future__ import annotations

import functools
import json
import math
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterable, Iterator, Optional, TypeVar

import typer

from ..errors import InvalidSeedError, PokerSquaresError
from ..harness.registry import checked_player, one_build_per_spec
from ..harness.runner import backend_session, check_backend
from ..harness.spec import MAX_SECONDS, RunSpecError
from ..harness.store import ResultStore
from ..points import integer_or_none
from . import (CONTEST_SHARED_HELP, PLOT_SUFFIXES, app, check_output, penalties_text, point_system, point_systems,
               save_plot, seconds_between)
from .harness import (ADDRESS_OPT, BACKEND_OPT, DB_OPT, JSON_OPT, QUIET_OPT, SECRET_OPT, WORKERS_HELP,
                      _check_workers, _Progress, check_secret)

__all__ = ["experiment_app"]

experiment_app = typer.Typer(
    name="experiment",
    help="Reproduce the papers' tables, printing our figures beside theirs (every game is recorded in the "
         "result store; rerunning resumes).",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(experiment_app, name="experiment")

WORKERS_OPT = typer.Option(None, "--workers", "-w", help=WORKERS_HELP)


class ExperimentOptionError(PokerSquaresError):
    """A bad option of an experiment command."""


def _split(text: str) -> list[str]:
    return [p.strip() for p in text.replace(";", ",").split(",") if p.strip()]


def _number(text: str, cast):
    """``text`` as an integer (``cast`` int) in ASCII digits, as every other command takes
    it (``int()`` also takes ``1_0`` and other scripts' digits), or as a number written
    in ASCII; else None."""
    if cast is int:
        return integer_or_none(text)
    if not text.isascii() or "_" in text:
        return None
    try:
        return cast(text)
    except ValueError:
        return None


def _numbers(text: str, cast, what: str) -> list:
    values = [_number(x, cast) for x in _split(text)]
    if None in values:
        kind = "integers" if cast is int else "numbers"
        raise ExperimentOptionError(f"{what} must be comma-separated {kind}, got {text!r}")
    return _once(values, what)


def _once(items: list, option: str) -> list:
    """``items`` of an option, none twice: a name or value given twice would be played once
    and shown twice (or put a table's columns out of line)."""
    seen = set()
    for x in items:
        if x in seen:
            raise ExperimentOptionError(f"{option} gives {x!r} twice")
        seen.add(x)
    return items


def _names(text: str, option: str, what: str, known) -> list[str]:
    """The names of a list option: at least one, each known, none twice."""
    names = _split(text)
    if not names:
        raise ExperimentOptionError(f"{option} names no {what}; choose from {', '.join(known)}")
    return _once(names, option)


def _finite(obj):
    """``obj`` for JSON: a figure that does not exist (the standard error of one game, NaN)
    is null, as NaN and Infinity are not JSON."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def _json(obj) -> str:
    return json.dumps(_finite(obj), allow_nan=False)


PLOT_HELP = " (.png, .pdf or .svg; a name without suffix is written as PNG under that name)."


@contextmanager
def _recording(db: Path, workers: Optional[int], backend: str, address: Optional[str], total: int, desc: str,
               show_progress: bool, secret: Optional[str] = None) -> Iterator[tuple[ResultStore, dict]]:
    """The store and the options of ``experiments.runs.play_runs`` for one command, with
    the backend's session and a progress bar around them; ``secret`` (``--secret``) keys
    every run's player seeds, as ``run --secret`` keys its run's."""
    secret = check_secret(secret)
    workers = _check_workers(workers)
    check_backend(backend, address)
    with ResultStore(db) as store, backend_session(backend, address):
        progress = _Progress(total, desc, show_progress)
        try:
            yield store, dict(workers=workers, backend=backend, address=address, secret=secret,
                              on_result=lambda rec: progress.update(rec.score), on_held=progress.held)
        finally:
            progress.close()


T = TypeVar("T")


def _planned(build: Callable[[], T], games_option: str, games: int, seed: int) -> T:
    """``build()``, runs made before the store is opened: a count of games or a seed a run
    cannot take is one line naming the option it came from (the run's own words do not)."""
    try:
        return build()
    except InvalidSeedError as e:
        raise ExperimentOptionError(f"--seed {seed} with {games_option} {games}: {e}") from None
    except RunSpecError as e:  # the seconds are checked by their options: here, the count
        raise ExperimentOptionError(f"{games_option} {games}: {e}") from None


def _players_made(players: Iterable[str], option: str | None = None, value=None) -> None:
    """Each player made before the store is opened (playing the runs makes them only
    then): a parameter out of range is one line, naming ``option`` (given ``value``) if
    that is where the parameter came from."""
    for player in dict.fromkeys(players):
        try:
            checked_player(player)
        except PokerSquaresError as e:
            if option is None:
                raise
            raise ExperimentOptionError(f"{option} {value}: {e}") from None


def _given(ctx: typer.Context, *names: str) -> list[str]:
    """The options among the parameters ``names`` given on the command line (not left at
    their defaults), as typed: an option the chosen parts never use is refused, not dropped."""
    out = []
    for param in ctx.command.params:
        source = ctx.get_parameter_source(param.name) if param.name in names else None
        if source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP"):
            out.append(param.opts[0])
    return out


def _unused(ctx: typer.Context, names: tuple[str, ...], why: str) -> None:
    """One line if any option of ``names`` was given although nothing will use it (``why``)."""
    given = _given(ctx, *names)
    if given:
        raise ExperimentOptionError(f"{given[0]} {why}")


def _games(specs) -> int:
    return sum(s.games for s in dict.fromkeys(specs))


def _show_row(row, width: int = 44, label: str | None = None) -> str:
    paper = "-" if row.paper is None else str(row.paper)
    pen = f", {penalties_text(row.penalties)}" if row.penalties else ""
    se = f"{row.stderr:5.2f}" if math.isfinite(row.stderr) else f"{'-':<5}"  # one game: no standard error
    return (f"  {label or row.label:<{width}} {row.mean:8.2f} ± {se}  (n={row.games}, run {row.run_id}{pen})"
            f"  paper {paper}")


# -- Tiger ------------------------------------------------------------------------------------

TIGER_PARTS = ("table3", "cp", "squash")


@experiment_app.command("tiger", short_help="Tiger's tables: selection and simulation, C_p, squashing.")
def tiger_cmd(
    ctx: typer.Context,
    games: int = typer.Option(10, "--games", "-n", min=1, help="Games per configuration (paper: 2,000; 700 for squashing)."),
    time_per_game: float = typer.Option(1.0, "--time-per-game", callback=seconds_between(0.05), help="Decision seconds per game, at least 0.05 (paper: 30)."),
    prep_time: float = typer.Option(300.0, "--prep-time", callback=seconds_between(0.0, MAX_SECONDS),
                                    help="Preparation seconds per configuration, at least 0 (contest: 300)."),
    seed: int = typer.Option(0, "--seed", help="Game i is dealt with seed + i."),
    parts: str = typer.Option("table3,cp", "--parts", help=f"Comma-separated parts: {', '.join(TIGER_PARTS)}."),
    rows: str = typer.Option("", "--rows", help="Table 3 rows to run, e.g. 1,6,12 (default: all 12)."),
    cps: str = typer.Option(",".join(f"{c:g}" for c in (0.5, 1, 2.5, 5, 7.5, 10, 20, 50, 141.4, 500, 5000)),
                            "--cp", help="C_p values of the Figure 1 sweep."),
    plot: Path = typer.Option(Path("tiger_cp_sweep.png"), "--plot", help="Where to save the C_p sweep plot" + PLOT_HELP),
    db: Path = DB_OPT,
    workers: Optional[int] = WORKERS_OPT,
    backend: str = BACKEND_OPT,
    address: Optional[str] = ADDRESS_OPT,
    json_out: bool = JSON_OPT,
    quiet: bool = QUIET_OPT,
    secret: Optional[str] = SECRET_OPT,
) -> None:
    """Rerun Tiger's experiments under American (Arrington et al. 2016): Table 3's twelve
    selection/simulation rows, the C_p sweep of Figure 1 (saved as a plot) and,
    optionally, Table 2's squashing ranges; our means and standard errors beside the paper's."""
    from ..experiments import tiger as ex
    from ..experiments.runs import fill_rows

    if time_per_game > MAX_SECONDS:  # the runs' own check says "the time per game", not the option
        raise ExperimentOptionError(f"--time-per-game must be at most {MAX_SECONDS:g} s, got {time_per_game:g}")
    chosen = _split(parts)
    unknown = [p for p in chosen if p not in TIGER_PARTS]
    if unknown or not chosen:
        raise ExperimentOptionError(f"unknown part {unknown[0] if unknown else parts!r}; "
                                    f"parts: {', '.join(TIGER_PARTS)}")
    _once(chosen, "--parts")
    row_ids = _numbers(rows, int, "--rows")
    if rows.strip() and not row_ids:  # "," would be taken for all twelve
        raise ExperimentOptionError("--rows names no row; Table 3 rows are 1..12 (leave --rows out for all)")
    if row_ids and "table3" not in chosen:
        raise ExperimentOptionError("--rows chooses Table 3's rows: add table3 to --parts")
    if any(not 1 <= r <= 12 for r in row_ids):
        raise ExperimentOptionError("Table 3 rows are 1..12")
    cp_values = _numbers(cps, float, "--cp")
    if "cp" not in chosen:  # the sweep's values and its plot would be taken and ignored
        _unused(ctx, ("cps", "plot"), "goes with the C_p sweep: add cp to --parts")
    if "cp" in chosen:
        if not cp_values or any(c <= 0 or not math.isfinite(c) for c in cp_values):
            raise ExperimentOptionError("--cp needs positive finite numbers")
        check_output(plot, "--plot", db=db, suffixes=PLOT_SUFFIXES, example="tiger_cp_sweep.png")
    tables = {}
    if "table3" in chosen:
        tables["table3"] = _planned(lambda: ex.table3_rows(games, seed, time_per_game, prep_time, row_ids or None),
                                    "--games", games, seed)
    if "cp" in chosen:
        tables["cp_sweep"] = _planned(lambda: ex.cp_rows(games, seed, time_per_game, prep_time, cp_values),
                                      "--games", games, seed)
    if "squash" in chosen:
        tables["table2"] = _planned(lambda: ex.table2_rows(games, seed, time_per_game, prep_time), "--games", games,
                                    seed)
    every = [r for t in tables.values() for r in t]
    with _recording(db, workers, backend, address, _games(r.run for r in every), "tiger",
                    not (quiet or json_out), secret) as (store, play):
        fill_rows(every, store, **play)
    result: dict = {"system": "American", "games": games, "time_per_game": time_per_game, "seed": seed,
                    "db": str(db), **{name: [r.to_json() for r in t] for name, t in tables.items()}}
    if "cp_sweep" in tables:
        save_plot(lambda name: ex.plot_cp_sweep(tables["cp_sweep"], cp_values, name, time_per_game), plot)
        result["plot"] = str(plot)
    if json_out:
        typer.echo(_json(result))
        return
    typer.echo(f"Tiger under American: {games} games per row, {time_per_game:g} s per game "
               f"(paper: 30 s; 2,000 games for Table 3, 700 for Table 2); results in {db}")
    titles = {"table3": "Table 3: selection / simulation (mean ± s.e.)",
              "cp_sweep": "Figure 1: core MCTS, unsquashed scores, by C_p",
              "table2": "Table 2: core MCTS, C_p = 1/sqrt(2), squashed scores"}
    for name, table in tables.items():
        typer.echo(titles[name])
        for row in table:
            typer.echo(_show_row(row))
        if name == "cp_sweep":
            typer.echo(f"  plot saved to {plot}")


# -- GettysburgPlayer -----------------------------------------------------------------------

MAX_SAMPLES = 10_000  # systems drawn per random type: beyond it a typo, not a plan (the paper drew 500)


@experiment_app.command("gettysburg", short_help="GettysburgPlayer's figures: NARL learners and searches.")
@one_build_per_spec()  # each run's player is built once in this process, for all its checks
def gettysburg_cmd(
    ctx: typer.Context,
    part: str = typer.Option("both", "--part", help="learning, search or both."),
    systems: str = typer.Option("american,british,ameritish,random,hypercorner," + ",".join(
        ["high_card", "one_pair", "two_pair", "three_of_a_kind", "straight", "flush", "full_house"]),
        "--systems", help="Learning comparison: system types, comma-separated (american, british, ameritish, "
                          "random, hypercorner, or a single hand such as two_pair or royal_flush)."),
    samples: int = typer.Option(2, "--samples", min=1, max=MAX_SAMPLES,
                                help=f"Systems drawn per random type (the paper: 500; at most {MAX_SAMPLES:,})."),
    variants: str = typer.Option("eps0=0.1,eps0=0.5,eps0=0.5+sizes", "--variants", help="NARL learners to compare."),
    learn_games: Optional[int] = typer.Option(100_000, "--learn-games", min=0,
                                              help="Learning games per learner and system, in each run's preparation "
                                                   "(fixed work: it replays with the run's secret, so in any store "
                                                   "with --secret; 0: learn for --learn-seconds instead)."),
    learn_seconds: Optional[float] = typer.Option(None, "--learn-seconds", callback=seconds_between(0.0, MAX_SECONDS),
                                                  help="With --learn-games 0: each run's preparation time, in which "
                                                       "NARL learns (85% of it; at least 0.35, below which the greedy "
                                                       "rule is played; default 10; the contest: 300)."),
    games: int = typer.Option(2000, "--games", "-n", min=2, help="Greedy games per learner and system (the paper: 2000)."),
    search_systems: str = typer.Option("american,british,ameritish:21347,hypercorner:21347", "--search-systems",
                                       help="Search comparison: point system specs separated by commas, or by ';' when "
                                            "one is ten integers."),
    searches: str = typer.Option("expectimax,depth_mc,flat_ucb,greedy", "--searches",
                                  help="expectimax, depth_mc, flat_ucb, greedy."),
    evaluator: str = typer.Option("best", "--evaluator",
                                  help="Learner for the searches: a variant name, or 'best' (the learning part's best "
                                       "total; eps0=0.5 when the learning part is not run)."),
    search_games: int = typer.Option(20, "--search-games", min=2, help="Games per search and system (the paper: 100)."),
    time_per_game: float = typer.Option(2.0, "--time-per-game", callback=seconds_between(0.05, MAX_SECONDS),
                                        help="Decision seconds per game, the harness's limit, at least 0.05 (the contest: 30)."),
    seed: int = typer.Option(0, "--seed", help="First deal (game i is dealt with seed + i) and learning seed."),
    plot_dir: Path = typer.Option(Path("."), "--plot-dir", help="Where to write gettysburg-learning.png and "
                                                                "gettysburg-search.png."),
    db: Path = DB_OPT,
    workers: Optional[int] = WORKERS_OPT,
    backend: str = BACKEND_OPT,
    address: Optional[str] = ADDRESS_OPT,
    json_out: bool = JSON_OPT,
    quiet: bool = QUIET_OPT,
    secret: Optional[str] = SECRET_OPT,
) -> None:
    """GettysburgPlayer (Neller et al. 2016, sect. 6): NARL learners (Fig. 2) and searches."""
    from ..experiments import gettysburg as X
    from ..points import contest_words, split_point_system_specs

    if part not in ("learning", "search", "both"):
        raise ExperimentOptionError(f"--part must be learning, search or both, not {part!r}")
    learning, searching = part in ("learning", "both"), part in ("search", "both")
    # A part's options, given when the part is not run, would be taken and ignored.
    if not learning:
        _unused(ctx, ("systems", "samples", "variants", "games"), "is the learning part's: run it with --part "
                                                                    "learning or both")
    if not searching:
        _unused(ctx, ("search_systems", "searches", "evaluator", "search_games"), "is the search part's: run it with "
                                                                                   "--part search or both")
    # A part's lists name something (an empty one crashed after the store was opened, or
    # printed an empty table); a list of a part not run may be empty.
    kinds = (_names(systems, "--systems", "system type", X.SYSTEM_TYPES) if learning
             else _once(_split(systems), "--systems"))
    for k in kinds:
        if k not in X.SYSTEM_TYPES:
            raise ExperimentOptionError(f"unknown system type {k!r}; known: {', '.join(X.SYSTEM_TYPES)}")
    if not any(k in X.SAMPLED for k in kinds):  # only the random types are drawn
        _unused(ctx, ("samples",), f"draws systems of the random types ({', '.join(X.SAMPLED)}), and --systems "
                                   "names none")
    variant_list = (_names(variants, "--variants", "learner", X.VARIANTS) if learning
                    else _once(_split(variants), "--variants"))
    for v in variant_list:
        if v not in X.VARIANTS:
            raise ExperimentOptionError(f"unknown variant {v!r}; known: {', '.join(X.VARIANTS)}")
    search_list = (_names(searches, "--searches", "search", X.SEARCHES) if searching
                   else _once(_split(searches), "--searches"))
    for s in search_list:
        if s not in X.SEARCHES:
            raise ExperimentOptionError(f"unknown search {s!r}; known: {', '.join(X.SEARCHES)}")
    if evaluator != "best" and evaluator not in X.VARIANTS:
        raise ExperimentOptionError(f"unknown evaluator {evaluator!r}; known: best, {', '.join(X.VARIANTS)}")
    spec_list = split_point_system_specs(search_systems)
    if searching and not spec_list:
        raise ExperimentOptionError("--search-systems names no point system")
    for spec in spec_list:
        if contest_words(spec) is not None:  # the parser's "one point system is wanted here" is false for a list
            raise ExperimentOptionError(f"--search-systems names its systems one by one, not {spec.strip()!r}: "
                                        "give them, e.g. american,british,ameritish:34412016")
    # Bad specs fail before any work; typed values beyond the range are noted. One system
    # written two ways (american and American, or its ten integers) is one run, shown and
    # counted in the totals twice: by its points, as the matrix tells them.
    seen: dict = {}
    for k, spec in enumerate(spec_list):
        earlier = seen.setdefault(point_system(spec).points, k)
        if earlier != k:
            raise ExperimentOptionError(f"--search-systems gives one point system twice "
                                        f"({spec_list[earlier].strip()!r} and {spec.strip()!r}); give each once")
    if not plot_dir.is_dir():
        raise ExperimentOptionError(f"--plot-dir {str(plot_dir)!r} is not a directory")
    for name, wanted in (("gettysburg-learning.png", part in ("learning", "both")),
                         ("gettysburg-search.png", part in ("search", "both"))):
        if wanted:
            check_output(plot_dir / name, "--plot-dir", db=db, suffixes=PLOT_SUFFIXES)
    if learn_games and learn_seconds is not None:  # it would be ignored: the games fix the learning
        raise ExperimentOptionError("--learn-seconds goes with --learn-games 0 (the learning is otherwise "
                                    f"{learn_games:,} games, whatever the time)")
    lg = learn_games or None
    ls = None if lg else (10.0 if learn_seconds is None else learn_seconds)
    # Both parts' runs and their players, made before the store is opened: a count, a seed
    # or learning games out of range was found only once the learning part had played.
    plan = (_planned(lambda: X.learning_plan(kinds, variant_list, samples, lg, ls, games, seed, time_per_game),
                     "--games", games, seed) if learning else {})
    # The searches' learner may be the learning part's best: one of its variants.
    learners = [evaluator] if evaluator != "best" else variant_list if learning else ["eps0=0.5"]
    search_plans = {v: _planned(functools.partial(X.search_plan, spec_list, search_list, v, lg, ls, search_games, seed,
                                                  time_per_game), "--search-games", search_games, seed)
                    for v in learners} if searching else {}
    # The players differ in search and learner, both checked above: only their learning games can be refused.
    _players_made([s.player for specs in plan.values() for s in specs]
                  + [s.player for p in search_plans.values() for s in p.values()], "--learn-games", learn_games)
    # The search runs' games, for the progress bar (the learner may be the learning part's best).
    search_total = len(spec_list) * len(search_list) * search_games if searching else 0
    say = (lambda m: None) if json_out else typer.echo
    out: dict = {"paper": X.PAPER, "db": str(db)}
    with _recording(db, workers, backend, address, _games(s for specs in plan.values() for s in specs)
                    + search_total, "gettysburg", not (quiet or json_out), secret) as (store, play):
        if learning:
            out["learning"] = X.run_learning(plan, store, {"samples": samples, "learn_games": lg,
                                                           "learn_seconds": ls, "games": games, "seed": seed,
                                                           "time_per_game": time_per_game}, **play)
        if searching:
            chosen = evaluator
            if chosen == "best":
                chosen = out["learning"]["best"] if learning else "eps0=0.5"
            out["search"] = X.run_search(
                search_plans[chosen], chosen, store, {"learn_games": lg, "learn_seconds": ls, "games": search_games,
                                                      "time_per_game": time_per_game, "seed": seed}, **play)
    if learning:
        result = out["learning"]
        result["plot"] = str(plot_dir / "gettysburg-learning.png")
        save_plot(lambda name: X.plot_learning(result, name), Path(result["plot"]), "--plot-dir")
        say(f"# Learning (Fig. 2): greedy play after {lg or ls} {'games' if lg else 's'} of learning, "
            f"{games} games per system; mean ± s.e. (normalised)")
        say(f"{'system':<16}" + "".join(f"{v:>28}" for v in variant_list) + "   best")
        for row in result["rows"]:
            cells = "".join(f"{r['mean']:9.2f} ±{r['se']:5.2f} ({r['normalised']:.2f})".rjust(28)
                            for r in row["variants"].values())
            say(f"{row['system']:<16}{cells}   {row['best']}")
        say("total normalised: " + ", ".join(f"{v} {t:.2f}" for v, t in result["totals"].items())
            + f"; best {result['best']}")
        say(f"paper: {X.PAPER['learning']}")
        say(f"plot: {result['plot']}")
    if searching:
        result = out["search"]
        result["plot"] = str(plot_dir / "gettysburg-search.png")
        save_plot(lambda name: X.plot_search(result, name), Path(result["plot"]), "--plot-dir")
        say(f"# Search (sect. 6.2) over NARL {result['evaluator']}: {search_games} games per system, "
            f"{time_per_game:g} s per game; mean ± s.e. (normalised)")
        say(f"{'system':<22}" + "".join(f"{s:>26}" for s in search_list))
        for row in result["rows"]:
            cells = "".join(f"{r['mean']:8.2f} ±{r['se']:5.2f} ({r['normalised']:.2f})".rjust(26)
                            for r in row["searches"].values())
            say(f"{row['system']:<22}{cells}")
            paired = [f"{s} {r['minus_first']:+.2f} ±{r['minus_first_se']:.2f}" for s, r in row["searches"].items()
                      if "minus_first" in r]
            if paired:
                say(f"{'':<22}paired, minus {search_list[0]}: " + ", ".join(paired))
        say("total normalised: " + ", ".join(f"{s} {t:.2f}" for s, t in result["totals"].items())
            + f"; best {result['best']}")
        say("decision seconds per game: " + ", ".join(
            f"{s} {max(r['searches'][s]['seconds_per_game'] for r in result['rows']):.2f}" for s in search_list))
        say(f"paper: {X.PAPER['search']}")
        say(f"plot: {result['plot']}")
    say(f"results in {db}")
    if json_out:
        typer.echo(_json(out))


# -- BeeMo ------------------------------------------------------------------------------------


@experiment_app.command("beemo", short_help="BeeMo's figures: OG, flat MC, learning, UCB1 training.")
@one_build_per_spec()  # each row's player is built once in this process, for all its checks
def beemo_cmd(
    ctx: typer.Context,
    prep_time: float = typer.Option(300.0, "--prep-time", callback=seconds_between(0.0, MAX_SECONDS), help="Learning seconds per system and configuration: "
                                    "each run's preparation, at least 0.35 where a row learns (below it the "
                                    "greedy rule is played), 0 with --load alone (contest: 300)."),
    games: int = typer.Option(10_000, "--games", "-n", min=1, help="OG games per learned table (the paper: 10,000)."),
    mc_games: int = typer.Option(100, "--mc-games", min=0, help="Flat MC + OG games on American (0: skip)."),
    playouts: int = typer.Option(100, "--playouts", min=0, help="Flat MC playouts per cell (the paper: 100; 0: no cap, use --seconds-per-move)."),
    seconds_per_move: Optional[float] = typer.Option(None, "--seconds-per-move", callback=seconds_between(0.001), help="Flat MC time per move, at least 0.001 (default: no limit beyond --time-per-game)."),
    systems: str = typer.Option("american,british,high_card,hypercorner", "--systems", help="Comma-separated: american, british, high_card, hypercorner."),
    configs: str = typer.Option("no_feedback,feedback,ucb1,beemo", "--configs", help="Comma-separated learning configurations: no_feedback, feedback, ucb1, beemo."),
    seed: int = typer.Option(0, "--seed", help="Seed of the first deal (game i is dealt with seed + i) and of learning."),
    time_per_game: float = typer.Option(30.0, "--time-per-game", callback=seconds_between(0.05, MAX_SECONDS), help="Decision seconds per game, the harness's limit, at least 0.05 (contest: 30)."),
    load: Optional[Path] = typer.Option(None, "--load", help="An American table from `train` to use for BeeMo's configuration (and the OG and flat MC rows) instead of learning."),
    unpaired: bool = typer.Option(False, "--unpaired", help="Flat MC with independent shuffles per cell (the default deals the same shuffles after every placement)."),
    db: Path = DB_OPT,
    workers: Optional[int] = WORKERS_OPT,
    backend: str = BACKEND_OPT,
    address: Optional[str] = ADDRESS_OPT,
    json_out: bool = JSON_OPT,
    quiet: bool = QUIET_OPT,
    secret: Optional[str] = SECRET_OPT,
) -> None:
    """BeeMo's figures (OG, flat MC + OG, learning with/without feedback, Flat MC vs
    UCB1 training) beside the papers'."""
    from ..experiments import beemo as ex
    from ..experiments.runs import fill_rows

    # An empty list would be taken for every system or configuration.
    sys_list = _names(systems, "--systems", "system", ex.SYSTEMS)
    cfg_list = _names(configs, "--configs", "configuration", ex.LEARNING_CONFIGS)
    for s in sys_list:
        if s not in ex.SYSTEMS:
            raise ExperimentOptionError(f"unknown system {s!r}; choose from {', '.join(ex.SYSTEMS)}")
    for c in cfg_list:
        if c not in ex.LEARNING_CONFIGS:
            raise ExperimentOptionError(f"unknown configuration {c!r}; choose from {', '.join(ex.LEARNING_CONFIGS)}")
    flat_mc_row = "american" in sys_list and "beemo" in cfg_list  # the only one that plays flat MC
    if not flat_mc_row and mc_games:
        _unused(ctx, ("mc_games",), "plays flat MC on American with BeeMo's training: it needs american in "
                                    "--systems and beemo in --configs")
    if not (flat_mc_row and mc_games):  # no flat MC row: its options would be taken and ignored
        _unused(ctx, ("playouts", "seconds_per_move", "unpaired"),
                "goes with the flat MC row: american in --systems, beemo in --configs and --mc-games above 0")
    if playouts == 0 and seconds_per_move is None:
        raise ExperimentOptionError("--playouts 0 needs --seconds-per-move")
    table = None
    if load is not None:
        if "american" not in sys_list or "beemo" not in cfg_list:  # the only row that plays it
            raise ExperimentOptionError("--load is the American table of BeeMo's configuration: it needs american "
                                        "in --systems and beemo in --configs")
        if not load.is_file():
            raise ExperimentOptionError(f"no table at {str(load)!r}")
        table = str(load.resolve())
        if "," in table:  # the path goes into a player spec, where commas part the parameters
            raise ExperimentOptionError(f"--load {table!r}: a table's path cannot hold a comma; move or rename it")
        ex.check_table(table)
    # The counts and seeds of the runs, each error naming its option: the learning rows' first.
    _planned(lambda: ex.beemo_rows(prep_time, games, 0, None, None, sys_list, cfg_list, seed, time_per_game, table),
             "--games", games, seed)
    rows = _planned(lambda: ex.beemo_rows(prep_time, games, mc_games, playouts or None, seconds_per_move, sys_list,
                                          cfg_list, seed, time_per_game, table, paired=not unpaired),
                    "--mc-games", mc_games, seed)
    # Every row's player made before the store is opened (playing makes them only then): the
    # flat MC row's playouts and time per move are the numbers its player takes from options.
    flat_mc = [r.run.player for r in rows if r.label == "flat_mc"]
    if flat_mc:
        _players_made([ex.flat_mc_spec(playouts or None, None)], "--playouts", playouts)
        _players_made(flat_mc, "--seconds-per-move", seconds_per_move)
    _players_made(r.run.player for r in rows)
    with _recording(db, workers, backend, address, _games(r.run for r in rows), "beemo",
                    not (quiet or json_out), secret) as (store, play):
        fill_rows(rows, store, **play)
        ex.add_og_on_same_deals(rows, store)
    if json_out:
        typer.echo(_json([r.to_json() for r in rows]))
        return
    learning = f"{prep_time:g} s of learning per run" + (f" (American's beemo row: the table {table})" if table else "")
    typer.echo(f"BeeMo: {learning}, {time_per_game:g} s per game; results in {db}")
    for row in rows:
        same = row.details.get("og_on_same_deals")
        typer.echo(_show_row(row, 32, f"{row.label} ({row.run.point_system.name})")
                   + ("" if same is None else f"; OG on the same deals {same:.2f}"))


# -- the evaluator x search matrix ---------------------------------------------------------------


@experiment_app.command("matrix", short_help="Every evaluator with every search, paired on the same deals.")
def matrix_cmd(
    evaluators: str = typer.Option("patterns,narl,possibility", "--evaluators", help="Comma-separated evaluators."),
    searches: str = typer.Option("greedy,flat_mc,expectimax,depth_mc,flat_ucb,mcts", "--searches",
                                 help="Comma-separated searches (each row's greedy cell is always played)."),
    systems: str = typer.Option("american,british,random:1", "--systems",
                                 help="'contest' (the 12 systems of 2016; " + CONTEST_SHARED_HELP + ") or point system "
                                      "specs separated by commas, or by ';' when one is ten integers."),
    games: int = typer.Option(20, "--games", "-n", min=2, help="Games per cell (the same deals in every cell)."),
    time_per_game: float = typer.Option(1.0, "--time-per-game", callback=seconds_between(0.05, MAX_SECONDS), help="Decision seconds per game, every cell, at least 0.05."),
    prep_time: float = typer.Option(30.0, "--prep-time", callback=seconds_between(0.0, MAX_SECONDS), help="Preparation seconds per cell: at least 0.35 where an evaluator learns (patterns, narl, td; below it the greedy rule is played), 0 for possibility alone (contest: 300)."),
    seed: int = typer.Option(0, "--seed", help="Game i is dealt with seed + i."),
    plot: Path = typer.Option(Path("matrix.png"), "--plot", help="Where to save the heat map" + PLOT_HELP),
    db: Path = DB_OPT,
    workers: Optional[int] = WORKERS_OPT,
    backend: str = BACKEND_OPT,
    address: Optional[str] = ADDRESS_OPT,
    json_out: bool = JSON_OPT,
    quiet: bool = QUIET_OPT,
    secret: Optional[str] = SECRET_OPT,
) -> None:
    """Every evaluator with every search under equal budgets on the same deals: means ± SE,
    each cell's paired difference against its row's greedy cell, and a heat map."""
    from ..experiments import matrix as ex
    from ..points import unique_names

    ev_list = _names(evaluators, "--evaluators", "evaluator", ex.EVALUATORS)
    se_list = _names(searches, "--searches", "search", ex.SEARCHES)
    for name, chosen, known in (("evaluator", ev_list, ex.EVALUATORS), ("search", se_list, ex.SEARCHES)):
        for x in chosen:
            if x not in known:
                raise ExperimentOptionError(f"unknown {name} {x!r}; choose from {', '.join(known)}")
    system_list = point_systems(systems)
    if not system_list:
        raise ExperimentOptionError("no point system given")
    if len({s.points for s in system_list}) < len(system_list):
        raise ExperimentOptionError("--systems gives the same point values twice")
    # Two systems typed as ten integers are both "custom": the matrix tells them apart.
    system_list = [replace(s, name=n) for s, n in zip(system_list, unique_names(system_list))]
    check_output(plot, "--plot", db=db, suffixes=PLOT_SUFFIXES, example="matrix.png")
    cells = _planned(lambda: ex.matrix_specs(ev_list, se_list, system_list, games, seed, time_per_game, prep_time),
                     "--games", games, seed)
    with _recording(db, workers, backend, address, _games(cells.values()), "matrix",
                    not (quiet or json_out), secret) as (store, play):
        rows = ex.run_matrix(cells, store, **play)
    save_plot(lambda name: ex.plot_matrix(rows, name, f"evaluator x search: {games} games per cell, "
                                                      f"{time_per_game:g} s per game, {prep_time:g} s preparation"),
              plot)
    if json_out:
        typer.echo(_json({"games": games, "time_per_game": time_per_game, "prep_time": prep_time, "seed": seed,
                               "db": str(db), "plot": str(plot), "cells": rows}))
        return
    typer.echo(f"Evaluator x search: {games} games per cell (seeds {seed}..{seed + games - 1}), {time_per_game:g} s "
               f"per game, {prep_time:g} s preparation; mean ± s.e., then the paired difference vs the row's greedy")
    for system in dict.fromkeys(r["system"] for r in rows):
        typer.echo(f"{system}:")
        searches_here = list(dict.fromkeys(r["search"] for r in rows if r["system"] == system))
        typer.echo(f"  {'':<12}" + "".join(f"{s:>22}" for s in searches_here))
        for ev in ev_list:
            cells_here = [r for r in rows if r["system"] == system and r["evaluator"] == ev]
            typer.echo(f"  {ev:<12}" + "".join(f"{r['mean']:>13.2f} ± {r['se']:5.2f}" for r in cells_here))
            typer.echo(f"  {'':<12}" + "".join(
                (f"{r['vs_greedy']:>+13.2f} ± {r['vs_greedy_se']:5.2f}" if r["search"] != "greedy" else f"{'':>21}")
                + ("*" if r["penalties"] else " ") for r in cells_here))
    if any(r["penalties"] for r in rows):
        typer.echo("* cells with penalties: " + ", ".join(
            f"{r['system']}/{r['evaluator']}/{r['search']} ({r['penalties']})" for r in rows if r["penalties"]))
    typer.echo(f"heat map: {plot}; results in {db}")
