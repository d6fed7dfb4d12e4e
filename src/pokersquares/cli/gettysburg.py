"""``pokersquares experiment gettysburg``: the GettysburgPlayer's comparisons (NARL
learners under greedy play, then searches over the best learner) beside the paper's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from . import fail
from .experiment import experiment_app

JSON_OPT = typer.Option(False, "--json", help="Print machine-readable JSON.")


def _split(text: str) -> list[str]:
    return [p.strip() for p in text.replace(";", ",").split(",") if p.strip()]


@experiment_app.command("gettysburg")
def experiment_gettysburg_cmd(
    part: str = typer.Option("both", "--part", help="learning, search or both."),
    systems: str = typer.Option("american,british,ameritish,random,hypercorner," + ",".join(
        ["high_card", "one_pair", "two_pair", "three_of_a_kind", "straight", "flush", "full_house"]),
        "--systems", help="Learning comparison: system types, comma-separated (american, british, ameritish, "
                          "random, hypercorner, or a single hand such as two_pair or royal_flush)."),
    samples: int = typer.Option(2, "--samples", min=1, help="Systems drawn per random type (the paper: 500)."),
    variants: str = typer.Option("eps0=0.1,eps0=0.5,eps0=0.5+sizes", "--variants", help="NARL learners to compare."),
    learn_games: Optional[int] = typer.Option(100_000, "--learn-games", min=0,
                                              help="Learning games per learner and system (0: use --learn-seconds)."),
    learn_seconds: float = typer.Option(10.0, "--learn-seconds", min=0.0,
                                        help="Learning seconds, when --learn-games is 0 (the contest: 300)."),
    games: int = typer.Option(2000, "--games", "-n", min=2, help="Greedy games per learner and system (the paper: 2000)."),
    search_systems: str = typer.Option("american,british,ameritish:21347,hypercorner:21347", "--search-systems",
                                       help="Search comparison: point system specs, comma-separated."),
    searches: str = typer.Option("expectimax,mc,ucb,greedy", "--searches", help="expectimax, mc, ucb, greedy."),
    evaluator: str = typer.Option("best", "--evaluator",
                                  help="Learner for the searches: a variant name, or 'best' (the learning part's best "
                                       "total; eps0=0.5 when the learning part is not run)."),
    search_games: int = typer.Option(20, "--search-games", min=2, help="Games per search and system (the paper: 100)."),
    time_per_game: float = typer.Option(2.0, "--time-per-game", min=0.0,
                                        help="Decision seconds per game for the searches (the contest: 30)."),
    seed: int = typer.Option(0, "--seed", help="First deal (game i is dealt with seed + i) and learning seed."),
    plot_dir: Path = typer.Option(Path("."), "--plot-dir", help="Where to write gettysburg-learning.png and "
                                                                "gettysburg-search.png."),
    json_out: bool = JSON_OPT,
) -> None:
    """GettysburgPlayer (Neller et al. 2016, sect. 6): NARL learners (Fig. 2) and searches."""
    from ..experiments import gettysburg as X

    if part not in ("learning", "search", "both"):
        raise fail(f"--part must be learning, search or both, not {part!r}")
    kinds = _split(systems)
    for k in kinds:
        if k not in X.SYSTEM_TYPES:
            raise fail(f"unknown system type {k!r}; known: {', '.join(X.SYSTEM_TYPES)}")
    variant_list = _split(variants)
    for v in variant_list:
        if v not in X.VARIANTS:
            raise fail(f"unknown variant {v!r}; known: {', '.join(X.VARIANTS)}")
    search_list = _split(searches)
    for s in search_list:
        if s not in X.SEARCHES:
            raise fail(f"unknown search {s!r}; known: {', '.join(X.SEARCHES)}")
    if evaluator != "best" and evaluator not in X.VARIANTS:
        raise fail(f"unknown evaluator {evaluator!r}; known: best, {', '.join(X.VARIANTS)}")
    spec_list = _split(search_systems)
    from ..points import parse_point_system
    for spec in spec_list:
        parse_point_system(spec)  # bad specs fail before any work
    if not plot_dir.is_dir():
        raise fail(f"--plot-dir {str(plot_dir)!r} is not a directory")
    lg = learn_games or None
    ls = None if lg else learn_seconds
    say = (lambda m: None) if json_out else typer.echo
    out: dict = {"paper": X.PAPER}

    if part in ("learning", "both"):
        say(f"# Learning (Fig. 2): greedy play after {lg or ls} {'games' if lg else 's'} of learning, "
            f"{games} games per system")
        say(f"{'system':<16}" + "".join(f"{v:>28}" for v in variant_list) + "   best")

        def show(row: dict) -> None:
            cells = "".join(f"{r['mean']:9.2f} ±{r['se']:5.2f} ({r['normalised']:.2f})".rjust(28)
                            for r in row["variants"].values())
            say(f"{row['system']:<16}{cells}   {row['best']}")

        result = X.run_learning(kinds, variant_list, samples, lg, ls, games, seed, on_row=show)
        say("total normalised: " + ", ".join(f"{v} {t:.2f}" for v, t in result["totals"].items())
            + f"; best {result['best']}")
        say("learning speed (games/s): " + ", ".join(
            f"{v} {sum(r['variants'][v]['learn_games'] for r in result['rows']) / max(1e-9, sum(r['variants'][v]['learn_seconds'] for r in result['rows'])):,.0f}"
            for v in variant_list))
        say(f"paper: {X.PAPER['learning']}")
        path = plot_dir / "gettysburg-learning.png"
        X.plot_learning(result, path)
        say(f"plot: {path}")
        result["plot"] = str(path)
        out["learning"] = result

    if part in ("search", "both"):
        chosen = evaluator
        if chosen == "best":
            chosen = out["learning"]["best"] if "learning" in out else "eps0=0.5"
        say(f"# Search (sect. 6.2) over NARL {chosen}: {search_games} games per system, "
            f"{time_per_game:g} s per game")
        say(f"{'system':<22}" + "".join(f"{s:>26}" for s in search_list))

        def show_search(row: dict) -> None:
            cells = "".join(f"{r['mean']:8.2f} ±{r['se']:5.2f} ({r['normalised']:.2f})".rjust(26)
                            for r in row["searches"].values())
            say(f"{row['system']:<22}{cells}")
            paired = [f"{s} {r['minus_first']:+.2f} ±{r['minus_first_se']:.2f}" for s, r in row["searches"].items()
                      if "minus_first" in r]
            if paired:
                say(f"{'':<22}paired, minus {search_list[0]}: " + ", ".join(paired))

        result = X.run_search(spec_list, search_list, chosen, lg, ls, search_games, time_per_game, seed,
                              on_row=show_search)
        say("total normalised: " + ", ".join(f"{s} {t:.2f}" for s, t in result["totals"].items())
            + f"; best {result['best']}")
        say("seconds per game: " + ", ".join(
            f"{s} {max(r['searches'][s]['seconds_per_game'] for r in result['rows']):.2f}" for s in search_list))
        say(f"paper: {X.PAPER['search']}")
        path = plot_dir / "gettysburg-search.png"
        X.plot_search(result, path)
        say(f"plot: {path}")
        result["plot"] = str(path)
        out["search"] = result

    if json_out:
        typer.echo(json.dumps(out))
