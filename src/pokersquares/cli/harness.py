"""Harness subcommands: players, play, run, tournament, results, demo."""

from __future__ import annotations

import json
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Callable, Optional

import typer

from ..cards import card_name, check_seed
from ..errors import PokerSquaresError
from ..files import replacing
from ..game import Grid
from ..harness.compare import records_summary
from ..harness.registry import (checked_player, factory_parameters, list_players, one_build_per_spec, spec_identity,
                                split_player_list)
from ..harness.runner import DEFAULT_MEMORY_MB, RunSpec, backend_session, check_backend, record_run
from ..harness.spec import MAX_GAMES, MAX_SECRET, check_saved_states, check_seconds
from ..harness.store import DEFAULT_DB, GameRecord, ResultStore
from ..harness.tournament import run_tournament, table_from_store
from ..machine import check_compiler, usable_cores
from ..optimum.regret import format_regret, regret_lines, run_regrets
from ..points import SPEC_HELP
from . import CONTEST_SHARED_HELP, app, check_output, fail, penalties_text, point_system, point_systems
from .optimum import check_optima_store

WORKERS_HELP = ("Games played in parallel (default: the cores this process may use, as taskset, a Slurm job "
                "or a container's CPU quota allow, / cores the player uses, so they are never oversubscribed: "
                "under a time budget two games sharing a core both play weaker). "
                "Results are the same for any number, but for a player that cannot be pickled once "
                "prepared (java:..., openspiel:mcts; said in a warning).")
JSON_OPT = typer.Option(False, "--json", help="Print machine-readable JSON (no progress bar).")
PLAIN_JSON_OPT = typer.Option(False, "--json", help="Print machine-readable JSON.")  # commands without a progress bar
QUIET_OPT = typer.Option(False, "--quiet", "-q", help="No progress bar.")
DB_OPT = typer.Option(DEFAULT_DB, "--db", help="The SQLite result store (created if missing).")
READ_DB_OPT = typer.Option(DEFAULT_DB, "--db", help="The SQLite result store to read (read only; it must exist).")
TPG_OPT = typer.Option(30.0, "--time-per-game", help="Decision seconds per game (contest: 30).")
PREP_OPT = typer.Option(300.0, "--prep-time", help="Preprocessing seconds per point system (contest: 300).")
QUICK_LOOK_S = 60  # from this many seconds of a game's limits, `play` says how long a game it plays may take
# The least --memory-limit taken: a game process holds about 80 MB before its player loads.
MIN_MEMORY_LIMIT_MB = 128
MEMORY_OPT = typer.Option(DEFAULT_MEMORY_MB, "--memory-limit", help="MB of resident memory one game process may "
                          "use; a player over it is stopped and its game scores the penalty (at least 128; 0: no limit). Measured "
                          "five times a second, not a hard cap: a process that grows fast passes it for a moment.")
RETRY_OPT = typer.Option(False, "--retry-penalties", help="Play the stored penalised games of these runs again "
                         "(after fixing what caused them); other finished games are kept.")
SEED_OPT = typer.Option(0, "--seed", help="Seed of the first game; game i is dealt with seed + i.")
SECRET_OPT = typer.Option(None, "--secret", help="The key of the players' own random seeds (default: a fresh random "
                          "one per run, kept in the store). The same key replays the players' randomness in any store: "
                          "a run whose work does not depend on the clock gives the same games. Players never see it.")
BACKEND_OPT = typer.Option("local", "--backend", help="Where games run: 'local' (worker processes here) or 'ray' "
                           "(Ray tasks; needs pip install 'pokersquares[ray]'). Results go to the same store.")
CLASSPATH_OPT = typer.Option(None, "--classpath", help="For java:CLASS players (contest Java players): the "
                             "contest framework's classes and the player's, as PATH[:PATH...] (jars or directories).")
ADDRESS_OPT = typer.Option(None, "--address", help="With --backend ray: the Ray cluster to use, as host:port "
                           "of its head, e.g. head:6379 (default: a private local Ray instance for this command).")


def _penalty_reasons(records) -> dict[str, int]:
    """Why the run's games scored the penalty: each reason with its games, most first."""
    return dict(Counter(r.penalty for r in records if r.penalty).most_common())


def _seeds_text(seeds: list[int], shown: int = 5) -> str:
    """``seed 7``, ``seeds 1, 3``, or the first ``shown`` and how many more."""
    seeds = sorted(seeds)
    more = f" and {len(seeds) - shown} more" if len(seeds) > shown else ""
    return f"seed{'s' if len(seeds) != 1 else ''} {', '.join(map(str, seeds[:shown]))}{more}"


def _say_penalties(records, what: str) -> None:
    """One line on stderr per reason (at most three) the games of ``what`` were penalised
    for: 100 penalties for a preparation that raised said nothing of why. The line names
    the games' deal seeds (at most five), which ``play --seed S`` shows again: a student
    told "1 game scored the penalty: error: IndexError" could not tell which."""
    reasons = _penalty_reasons(records)
    for reason, n in list(reasons.items())[:3]:
        seeds = _seeds_text([r.seed for r in records if r.penalty == reason])
        typer.echo(f"warning: {what}: {n} game{'s' if n != 1 else ''} ({seeds}) scored the penalty: {reason}",
                   err=True)
    if len(reasons) > 3:
        more = len(reasons) - 3
        typer.echo(f"warning: {what}: {more} more reason{'s' if more != 1 else ''}; `pokersquares results --export json` "
                   f"lists each game's", err=True)


class _Progress:
    """A tqdm bar with games done, running mean and time left; a resumed run's games
    that the store already holds (:meth:`held`) count as done, not as played just now."""

    def __init__(self, total: int, desc: str, enabled: bool) -> None:
        self.bar = None
        self.sum = 0.0
        self.n = 0
        self.last = 0.0
        if enabled and total > 0:
            from tqdm import tqdm
            # No monitor thread: the runner forks game processes, and a fork beside a thread
            # may copy a lock it holds (tqdm's own, which the warning printer takes) held
            # forever into the child; Python 3.12 and later warn of it at every fork.
            tqdm.monitor_interval = 0
            self.bar = tqdm(total=total, desc=desc, unit="game", file=sys.stderr, dynamic_ncols=True)

    def held(self, records) -> None:
        """Games the store holds, read back instead of played: done, in the mean, but not
        in the rate (the time left is that of the games still to play)."""
        k = len(records)
        if not k:
            return
        self.sum += sum(r.score for r in records)
        self.n += k
        if self.bar is not None:
            self.bar.n += k
            self.bar.last_print_n += k
            self.bar.initial += k
            self.bar.set_postfix(mean=f"{self.sum / self.n:.2f}", refresh=False)
            self.bar.refresh()

    def update(self, score: float) -> None:
        self.sum += score
        self.n += 1
        if self.bar is not None:
            self.bar.update(1)
            now = time.monotonic()
            if now - self.last > 0.2:
                self.bar.set_postfix(mean=f"{self.sum / self.n:.2f}", refresh=False)
                self.last = now

    def say(self, text: str) -> None:
        """A line on standard error above the bar (not glued to its end)."""
        if self.bar is not None:
            self.bar.write(text, file=sys.stderr)
        else:
            typer.echo(text, err=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.set_postfix(mean=f"{self.sum / max(1, self.n):.2f}")
            self.bar.close()


def use_classpath(classpath: Optional[str]) -> None:
    """Keep ``--classpath`` for the java: players of this command (and its workers)."""
    if isinstance(classpath, str):  # not the Option default when called as a function (demo)
        from ..players.java import set_classpath
        set_classpath(classpath)


def check_run_options(games: int, seed: int, time_per_game: float, prep_time: float, memory_limit: int) -> None:
    """A command's run options, each error naming its option (the run's own checks, in
    :class:`RunSpec`, name what a library caller passed)."""
    if not 1 <= games <= MAX_GAMES:
        raise fail(f"--games must be from 1 to {MAX_GAMES:,}, got {games}")
    check_seed(seed, "--seed")
    check_seed(seed + games - 1, "the last game's seed (--seed + --games - 1)")
    check_seconds(time_per_game, "--time-per-game", zero_ok=False)
    check_seconds(prep_time, "--prep-time", zero_ok=True)
    if memory_limit < 0:
        raise fail(f"--memory-limit must be a whole number of MB (0: none), got {memory_limit}")
    if 0 < memory_limit < MIN_MEMORY_LIMIT_MB:  # 4 meant as 4 GB: every game would be recorded as a penalty
        raise fail(f"--memory-limit is in MB: {memory_limit} MB is less than a game process needs to start "
                   f"(about 80 MB); give at least {MIN_MEMORY_LIMIT_MB} (e.g. 4096 for 4 GB), or 0 for no limit")


def check_secret(secret) -> Optional[str]:
    """``--secret``: printable text of 1 to :data:`MAX_SECRET` characters, or None when not
    given (also when the command is called as a function, as `demo` calls `play`, and
    the option's default object is passed)."""
    if not isinstance(secret, str):
        return None
    if not (0 < len(secret) <= MAX_SECRET and secret.isprintable()):
        raise fail(f"--secret must be printable text of 1 to {MAX_SECRET} characters, got {secret!r:.80}")
    return secret


def check_player_list(text: str, option: str) -> list[str]:
    """Player specs separated by commas or ';' (:func:`split_player_list`: ``key=value``
    after a comma is the previous player's), each built once (not prepared): a bad one
    fails here in one line, before any game is played or the store is touched."""
    try:
        names = split_player_list(text)
    except PokerSquaresError as e:
        raise fail(f"{option}: {e}") from None
    if not names:
        raise fail(f"{option} needs at least one player")
    for k, p in enumerate(names):
        same = [q for q in names[:k] if _same_player(q, p)]
        if same:
            raise fail(f"{option} lists a player twice" + (f": {same[0]} and {p} (its parameters in another order)"
                                                           if same[0] != p else f": {p}"))
    for p in names:
        built_player(p, option)
    return names


def _same_player(a: str, b: str) -> bool:
    """Whether two specs play the same player (:func:`spec_identity`), else the same text."""
    try:
        return spec_identity(a) == spec_identity(b)
    except PokerSquaresError:
        return a == b


def built_player(spec: str, option: str):
    """``checked_player(spec)``, a refusal said with the spec it is about when the player's
    own message does not name it (one of several players, or one setting of a sweep:
    "depth must be ... got 0" did not say whose)."""
    check_compiler("no game was played or recorded")  # before the store is made, as for a bad spec
    try:
        return checked_player(spec)
    except PokerSquaresError as e:
        if spec in str(e):
            raise
        raise fail(f"{option} {spec}: {e}") from None
    except SystemExit as e:  # an entrant's module or constructor calling sys.exit() or exit()
        # ended the command with its own exit code and no word (exit 3, or 1 and its message).
        raise fail(f"{option} {spec}: the player called sys.exit({e.code!r}) while its module was imported or "
                   f"it was built; a player's module and constructor must not exit") from None


def shown_player(run) -> str:
    """A run's player as listed: a person's games in the browser with the name they gave
    (``human (Ada)``), every other run by its spec."""
    if run.player == "human" and run.player_name not in ("", "human"):
        return f"human ({run.player_name})"
    return run.player


def check_system_list(systems: list, text: str, option: str = "--systems") -> list:
    """A tournament's point systems, checked before the store is touched: at least one, and
    no point values twice (one system given twice, or by its name and its ten integers,
    would count twice in every player's tournament score)."""
    if not systems:
        raise fail(f"{option} names no point system: {text!r}")
    if len({s.points for s in systems}) < len(systems):
        raise fail(f"{option} gives the same point values twice (a system would count twice in the tournament)")
    return systems


def _check_workers(workers: Optional[int]) -> Optional[int]:
    if workers is not None and workers < 1:
        raise fail("--workers must be at least 1")
    return workers


def _cores_here(have: int) -> str:
    """The cores a process of this command may use, said against the machine's when fewer."""
    machine = os.cpu_count() or have
    return f"this machine has {have}" if have >= machine else f"this process may use {have} of the machine's {machine}"


def warn_oversubscribed(specs: list[str], workers: Optional[int], backend: str = "local",
                        games: Optional[int] = None) -> None:
    """One warning line when parallel games of a player would keep more cores busy than
    this machine has (``--workers`` times the player's ``cores``): under a time budget
    games that share a core play weaker, unsaid. Ray's cluster counts its own cores."""
    from ..harness.spec import default_workers, player_cores

    if backend != "local":
        return
    have = usable_cores()
    for spec in specs:
        cores = player_cores(spec)
        parallel = min(workers or default_workers(spec), games or 2 ** 63)  # ``games``: a run's, if fewer
        if parallel * cores > have:
            each = f"{cores} core{'s' if cores > 1 else ''}"
            shown = (f"{parallel} parallel games of {spec} at {each} each keep" if parallel > 1
                     else f"{spec} at {each} keeps")
            # Only what would help: one game has no fewer workers, and cores= is not every player's.
            remedies = (["fewer --workers"] if parallel > 1 else []) + \
                (["a smaller cores="] if cores > 1 and _takes_cores(spec) else [])
            typer.echo(f"warning: {shown} {parallel * cores} cores busy; {_cores_here(have)}: games under a "
                       "time budget share cores and play weaker"
                       + (f" (give {' or '.join(remedies)})" if remedies else ""), err=True)


def _takes_cores(spec: str) -> bool:
    """Whether the player of ``spec`` takes ``cores=`` (``td`` and ``gettysburg`` do not, nor
    does ``greedy``); yes when that cannot be known (a ``java:`` player does take it)."""
    from ..harness.registry import factory_parameters, parse_player_spec, resolve_factory

    try:
        found = factory_parameters(resolve_factory(parse_player_spec(spec)[0])[0])
    except Exception:  # noqa: BLE001 - the spec is checked elsewhere; the advice stays as it was
        return True
    return found is None or found[1] or "cores" in found[0]


def _parameters_line(found: tuple[list[str], bool] | None) -> str:
    """What ``NAME:key=value`` a player takes, as the registry checks it."""
    if found is None:
        return "parameters: not known (its factory's signature cannot be read)"
    names, others = found
    listed = ", ".join(names) or "none"
    if others:
        listed = f"{', '.join(names)}, and others the player checks itself" if names else "any the player checks itself"
    return f"parameters: {listed}"


@app.command("players")
def players_cmd(json_out: bool = PLAIN_JSON_OPT) -> None:
    """List the registered players, each with the parameters it takes (NAME:key=value,...)."""
    infos = list_players()
    if json_out:
        rows = []
        for p in infos:
            found = factory_parameters(p.factory)
            rows.append({"name": p.name, "description": p.description, "cores": p.cores,
                         "parameters": None if found is None else found[0],
                         "other_parameters": found is not None and found[1]})
        typer.echo(json.dumps(rows))
        return
    for p in infos:
        typer.echo(f"{p.name:<12} {p.description}" + (f" [{p.cores} cores]" if p.cores > 1 else ""))
        typer.echo(f"{'':<12} {_parameters_line(factory_parameters(p.factory))}")
    typer.echo("and, not registered: java:CLASS (a contest Java player: --classpath, README \"Contest Java "
               "players\"), module.path:Class (your own Player class)"
               + ("" if any(p.name == "openspiel:mcts" for p in infos)
                  else ", openspiel:mcts (pip install 'pokersquares[openspiel]')"))


@app.command("play")
@one_build_per_spec()  # a player is built once in this process, for all its checks
def play_cmd(
    player: str = typer.Option("champion", "--player", "-p", help="A registered player (see `players`), NAME:key=value,... or module.path:Class."),
    system: str = typer.Option("american", "--system", "-s", help=SPEC_HELP),
    seed: int = typer.Option(0, "--seed", help="The deal's seed (the contest framework's shuffle)."),
    time_per_game: float = TPG_OPT,
    prep_time: float = PREP_OPT,
    db: Path = DB_OPT,
    json_out: bool = PLAIN_JSON_OPT,
    classpath: Optional[str] = CLASSPATH_OPT,
    memory_limit: int = MEMORY_OPT,
    retry_penalties: bool = typer.Option(False, "--retry-penalties",
                                         help="Play the game again if the store holds it penalised."),
    secret: Optional[str] = SECRET_OPT,
) -> None:
    """Play one game and print the moves and the final grid (a game the store already
    holds is shown from it, and said so)."""
    use_classpath(classpath)
    check_run_options(1, seed, time_per_game, prep_time, memory_limit)
    secret = check_secret(secret)
    ps = point_system(system)
    spec = RunSpec(player, ps, 1, seed, time_per_game, prep_time, memory_limit, secret)
    player = spec.player  # as the store knows it (``greedy:`` is ``greedy``)
    built_player(player, "--player")  # a bad spec fails here, before the store is touched
    check_saved_states([player], [ps])

    def say_how_long(held: list) -> None:
        """How long the game may take and how to take a quick look, said only when it is
        played: a game the store holds is shown at once."""
        if not held and not json_out and prep_time + time_per_game >= QUICK_LOOK_S:  # the defaults: 330 s
            typer.echo(f"this game may take {prep_time + time_per_game:g} s: {prep_time:g} s of preparation and "
                       f"{time_per_game:g} s of play (the contest's limits by default; --prep-time 10 "
                       f"--time-per-game 1 for a quick look)", err=True)

    played: list[GameRecord] = []
    with ResultStore(db) as store:
        run_id, records = record_run(spec, store, workers=1, on_result=played.append,
                                     retry_penalties=retry_penalties, on_held=say_how_long)
        player = store.run(run_id).player  # the store's run of it, perhaps its parameters in another order
    rec = records[0]
    if not played and not json_out:
        typer.echo(f"(the game stored in run {run_id} of {db}; play it again with another --db"
                   + (", or with --retry-penalties" if rec.penalty else "") + ")", err=True)
    grid = Grid()
    for c, r, col in rec.placements:
        grid.place(c, r, col)
    if json_out:
        typer.echo(json.dumps({"player": player, "system": ps.to_json(), "seed": seed, "score": rec.score,
                               "from_store": not played,
                               "penalty": rec.penalty, "decision_s": rec.decision_s,
                               "placements": [[card_name(c), r, col] for c, r, col in rec.placements],
                               "hands": [h.label for h in grid.hand_ids()]}))
        return
    for turn, (c, r, col) in enumerate(rec.placements, 1):
        typer.echo(f"{turn:2d}. {card_name(c)} -> row {r}, col {col}")
    typer.echo("")
    typer.echo(grid.render(ps))
    if rec.penalty:
        typer.echo(f"penalty: {rec.penalty}; score {rec.score}")
    typer.echo(f"score: {rec.score}  ({rec.decision_s:.2f} s of decision time)")


@app.command("run")
@one_build_per_spec()  # a player is built once in this process, for all its checks
def run_cmd(
    player: str = typer.Option("champion", "--player", "-p", help="A registered player, NAME:key=value,... or module.path:Class."),
    system: str = typer.Option("american", "--system", "-s", help=SPEC_HELP),
    games: int = typer.Option(100, "--games", "-n", help="Number of games."),
    seed: int = SEED_OPT,
    workers: Optional[int] = typer.Option(None, "--workers", "-w", help=WORKERS_HELP),
    time_per_game: float = TPG_OPT,
    prep_time: float = PREP_OPT,
    db: Path = DB_OPT,
    json_out: bool = JSON_OPT,
    quiet: bool = QUIET_OPT,
    backend: str = BACKEND_OPT,
    address: Optional[str] = ADDRESS_OPT,
    classpath: Optional[str] = CLASSPATH_OPT,
    memory_limit: int = MEMORY_OPT,
    retry_penalties: bool = RETRY_OPT,
    secret: Optional[str] = SECRET_OPT,
) -> None:
    """Play N games (recorded in the result store; rerunning resumes)."""
    use_classpath(classpath)
    check_run_options(games, seed, time_per_game, prep_time, memory_limit)
    secret = check_secret(secret)
    ps = point_system(system)
    workers = _check_workers(workers)
    check_backend(backend, address)
    spec = RunSpec(player, ps, games, seed, time_per_game, prep_time, memory_limit, secret)
    player = spec.player  # as the store knows it (``greedy:`` is ``greedy``)
    built_player(player, "--player")  # a bad spec fails here, before the store is touched
    check_saved_states([player], [ps])
    warn_oversubscribed([player], workers, backend, games)
    with ResultStore(db) as store, backend_session(backend, address):
        progress = _Progress(games, f"{player} on {ps.name}", not (quiet or json_out))
        t = time.monotonic()
        try:
            run_id, records = record_run(spec, store, workers=workers, on_result=lambda r: progress.update(r.score),
                                         backend=backend, address=address, retry_penalties=retry_penalties,
                                         on_held=progress.held)
        finally:
            progress.close()
        wall = time.monotonic() - t
    summary = records_summary(records)
    with ResultStore(db, readonly=True) as store:
        optimum = run_regrets(db, [store.run(run_id)]).get(run_id)
        player = store.run(run_id).player  # the store's run of it, perhaps its parameters in another order
    _say_penalties(records, f"{player} on {ps.name}")
    if json_out:
        typer.echo(json.dumps({"player": player, "system": ps.name, "points": list(ps.points), "seed": seed,
                               **summary, "penalty_reasons": _penalty_reasons(records),
                               "run_id": run_id, "wall_s": round(wall, 3),
                               "scores": [r.score for r in records], "optimum": optimum}))
        return
    spread = ("(one game: no stderr, no sd)," if summary["stderr"] is None else
              f"± {summary['stderr']:.2f} (stderr) over {summary['games']} games, sd {summary['stdev']:.2f},")
    typer.echo(f"{player} on {ps.name}: mean {summary['mean']:.2f} {spread} min {summary['min']}, max {summary['max']}, "
               f"{summary['seconds_per_game']:.3f} s/game, {penalties_text(summary['penalties'])}; run {run_id} in {db}")
    if optimum:
        typer.echo(f"  against the deals' optima: {format_regret(optimum)}")


def _print_regret_lines(db, runs, optima_db=None) -> None:
    lines = regret_lines(db, runs, optima_db)
    if lines:
        typer.echo("\nagainst the deals' perfect-information optima (pokersquares optimum):")
        for line in lines:
            typer.echo("  " + line)


def print_behind_first(table: dict, ws: int, wm: int) -> None:
    """Each system's first and every other player's paired difference to it, then how many
    systems each player is first on or within one paired standard error of the first."""
    behind = table.get("behind_first")
    if not behind:
        return
    players, systems = table["players"], table["systems"]
    typer.echo("")
    typer.echo("behind each system's first (mean difference, paired game by game, ± stderr)")
    typer.echo(f"{'system':<{ws}}" + "".join(f"{p:>{wm}}" for p in players))
    close = {p: 0 for p in players}
    counted = 0
    for s in systems:
        row = behind[s]
        if row["first"] is None:
            typer.echo(f"{s:<{ws}}" + "".join(f"{'-':>{wm}}" for _ in players))
            continue
        counted += 1
        cells = []
        for p in players:
            d = row["players"][p]
            if p == row["first"]:
                cells.append("first")
            else:
                cells.append(f"{d['diff']:+.2f} ± {d['se']:.2f}")
            close[p] += d["close"]
        typer.echo(f"{s:<{ws}}" + "".join(f"{c:>{wm}}" for c in cells))
    if counted:
        typer.echo(f"{'first or within 1 SE':<{ws}}" + "".join(f"{f'{close[p]} of {counted}':>{wm}}" for p in players))


def print_table(table: dict) -> None:
    players, systems = table["players"], table["systems"]
    w = max(8, *(len(p) for p in players)) + 2
    # Names are never cut: "ameritish:34412" would name another system than "ameritish:34412016".
    ws = max([16, *(len(s) + 1 for s in systems)])
    typer.echo(f"{'system':<{ws}}" + "".join(f"{p:>{w}}" for p in players))
    for s in systems:
        typer.echo(f"{s:<{ws}}" + "".join(f"{table['totals'][s][p]:>{w}.0f}" for p in players))
    typer.echo("")
    typer.echo("normalised (per system: (total - min) / (max - min))")
    for s in systems:
        typer.echo(f"{s:<{ws}}" + "".join(f"{table['normalized'][s][p]:>{w}.3f}" for p in players))
    typer.echo(f"{'TOTAL':<{ws}}" + "".join(f"{table['scores'][p]:>{w}.3f}" for p in players))
    se, gap_se = table.get("score_se", {}), table.get("gap_se", {})
    if se:
        typer.echo(f"{'± stderr':<{ws}}" + "".join(f"{se[p]:>{w}.3f}" for p in players))
    typer.echo("")
    typer.echo("mean ± stderr per game")
    wm = max(w, 17)
    typer.echo(f"{'system':<{ws}}" + "".join(f"{p:>{wm}}" for p in players))
    for s in systems:
        cells = []
        for p in players:
            m, e = table["means"][s][p], table["mean_se"][s][p]
            cells.append("-" if m is None else f"{m:.2f}" + ("" if e is None else f" ± {e:.2f}"))
        typer.echo(f"{s:<{ws}}" + "".join(f"{c:>{wm}}" for c in cells))
    penalties = table.get("penalties")
    if penalties is not None:
        per_player = {p: sum(penalties[s][p] for s in systems) for p in players}
        typer.echo(f"{'penalties':<{ws}}" + "".join(f"{per_player[p]:>{wm}}" for p in players))
    print_behind_first(table, ws, wm)
    typer.echo("")
    leader = table["ranking"][0]
    rank = 0
    for i, p in enumerate(table["ranking"], 1):
        # Level sums share a rank (1, 2, 2, 4): standings that ranked a tie by the order the
        # players were listed in told the one listed last it had lost.
        if i == 1 or table["scores"][p] != table["scores"][table["ranking"][i - 2]]:
            rank = i
        line = f"{rank}. {p}  {table['scores'][p]:.3f}"
        if p != leader and table["scores"][p] == table["scores"][leader]:
            line += f"  (level with {leader})"
        elif p in gap_se and p != leader:
            line += (f"  ({table['scores'][leader] - table['scores'][p]:.3f} ± {gap_se[p]:.3f} behind {leader}, "
                     f"bootstrap over deals)")
        typer.echo(line)
    print_penalty_reasons(table)


def print_penalty_reasons(table: dict, most: int = 3) -> None:
    """Under a tournament's table, why each player's penalised games scored the penalty:
    per player and reason (at most ``most`` reasons a player), its games, the systems and
    the deal seeds (``play --seed`` shows one again). The table's counts alone left a
    student with 0 points on a system to export every game to learn why."""
    reasons = table.get("penalty_reasons")
    if not reasons:
        return
    lines = []
    for p in table["players"]:
        found: dict[str, tuple[list[str], list[int], int]] = {}
        for s in table["systems"]:
            for reason, seeds in reasons.get(s, {}).get(p, {}).items():
                systems, held, n = found.get(reason, ([], [], 0))
                found[reason] = (systems + [s], held + list(seeds), n + len(seeds))
        ordered = sorted(found.items(), key=lambda kv: -kv[1][2])
        for reason, (systems, seeds, n) in ordered[:most]:
            lines.append(f"{p}: {n} game{'s' if n != 1 else ''} ({', '.join(systems)}; "
                         f"{_seeds_text(sorted(set(seeds)))}): {reason}")
        if len(ordered) > most:
            more = len(ordered) - most
            lines.append(f"{p}: {more} more reason{'s' if more != 1 else ''}; `pokersquares results --tournament "
                         f"{table.get('tournament_id', 'ID')} --export csv` lists each game's")
    if lines:
        typer.echo("")
        typer.echo("penalised games and why (by deal seed: `pokersquares play --seed N` with the player, system and "
                   "limits of the tournament shows one):")
        for line in lines:
            typer.echo("  " + line)


@app.command("tournament")
@one_build_per_spec()  # each player is built once in this process, for all its checks
def tournament_cmd(
    players: str = typer.Option(..., "--players", help="Players separated by commas or ';', each NAME or NAME:key=value,...; "
                               "e.g. random,champion:depth=25,stop_z=2,beemo (three players)."),
    systems: str = typer.Option("contest", "--systems", help="'contest' (the 12 systems of 2016; " + CONTEST_SHARED_HELP + ") or a list of specs separated by commas or ';' (';' "
                                  "where a spec is ten integers: 'american;0,1,2,3,4,5,6,7,8,9')."),
    games: int = typer.Option(10, "--games", "-n", help="Games per player and system."),
    seed: int = SEED_OPT,
    workers: Optional[int] = typer.Option(None, "--workers", "-w", help=WORKERS_HELP),
    time_per_game: float = TPG_OPT,
    prep_time: float = PREP_OPT,
    db: Path = DB_OPT,
    json_out: bool = JSON_OPT,
    quiet: bool = QUIET_OPT,
    backend: str = BACKEND_OPT,
    address: Optional[str] = ADDRESS_OPT,
    classpath: Optional[str] = CLASSPATH_OPT,
    memory_limit: int = MEMORY_OPT,
    retry_penalties: bool = RETRY_OPT,
    secret: Optional[str] = SECRET_OPT,
) -> None:
    """Every player on every system; prints totals, normalised scores and the ranking as the contest did."""
    use_classpath(classpath)
    check_run_options(games, seed, time_per_game, prep_time, memory_limit)
    secret = check_secret(secret)
    names = check_player_list(players, "--players")
    workers = _check_workers(workers)
    check_backend(backend, address)
    warn_oversubscribed(names, workers, backend)
    pss = check_system_list(point_systems(systems), systems)
    check_saved_states(names, pss)
    with ResultStore(db) as store, backend_session(backend, address):
        progress = _Progress(games * len(names) * len(pss), "tournament", not (quiet or json_out))
        try:
            table = run_tournament(names, pss, games, seed, store, time_per_game=time_per_game,
                                   prep_time=prep_time, workers=workers,
                                   on_result=lambda s, p, r: progress.update(r.score),
                                   backend=backend, address=address, memory_mb=memory_limit,
                                   retry_penalties=retry_penalties, secret=secret,
                                   on_held=lambda s, p, recs: progress.held(recs),
                                   on_taken=lambda taken: _say_taken(taken, progress.say))
        finally:
            progress.close()
    with ResultStore(db, readonly=True) as store:
        runs = store.runs(table["tournament_id"])
    table["optimum"] = {str(k): v for k, v in run_regrets(db, runs).items()}
    if json_out:
        typer.echo(json.dumps(table))
    else:
        print_table(table)
        _print_regret_lines(db, runs)


def _say_taken(taken: list[dict], say: Callable[[str], None]) -> None:
    """One line per tournament whose games a new tournament takes instead of playing
    them again (a late entrant, an added system: the others' games are the same)."""
    by_source: dict[int, list[dict]] = {}
    for run in taken:
        by_source.setdefault(run["from_tournament"], []).append(run)
    for source, runs in by_source.items():
        players = list(dict.fromkeys(r["player"] for r in runs))
        systems = len({r["system"] for r in runs})
        n = sum(r["games"] for r in runs)
        say(f"taking {n} game{'s' * (n != 1)} of tournament {source} ({', '.join(players)} on {systems} "
            f"system{'s' * (systems != 1)}): the same deals, limits and code, not played again")


def _print_incomplete(store: ResultStore, tournament_id: int) -> None:
    """Under the table of a tournament the store does not hold whole: how many games each
    player has, since its totals and ranking compare players over different games."""
    t = store.tournament(tournament_id)
    by_key = {(tuple(r.points), r.player): r.finished for r in store.runs(tournament_id)}
    points = [tuple(sys_["points"]) for sys_ in t["systems"]]
    held = {p: sum(by_key.get((pts, p), 0) for pts in points) for p in t["players"]}
    wanted = t["games"] * len(points)
    typer.echo(f"\nincomplete: {sum(held.values())} of {wanted * len(held)} games recorded ("
               + ", ".join(f"{p} {n} of {wanted}" for p, n in held.items() if n < wanted)
               + "); the totals and the ranking compare players over different games "
               "(run the same `pokersquares tournament` command again to finish it)")


@app.command("results")
def results_cmd(
    db: Path = READ_DB_OPT,
    run: Optional[int] = typer.Option(None, "--run", help="Only this run."),
    tournament: Optional[int] = typer.Option(None, "--tournament", help="Show this tournament's table."),
    export: Optional[str] = typer.Option(None, "--export", help="Export games as csv or json (with --run or "
                                                                "--tournament: its games only)."),
    out: Optional[Path] = typer.Option(None, "--out", help="Write the export here instead of standard output."),
    optima: Optional[list[Path]] = typer.Option(None, "--optima", metavar="<path>", help="Read the deals' optima from this store "
                                                "(pokersquares optimum --db) instead of --db; repeat it for "
                                                "one store per point system."),
    json_out: bool = PLAIN_JSON_OPT,
) -> None:
    """List what the result store holds, show a tournament, or export games (CSV/JSON).

    An export holds one row per game, with the columns run_id, tournament_id (empty or
    null: none), player (the spec as given), player_name (the name of the spec's player,
    e.g. tiger for tiger:iterations=80; for a game a person played in the web app, the
    name they gave), system, points (in CSV ten integers separated by spaces),
    game_index, seed, score, decision_s (seconds, to the microsecond), penalty (why the
    game scored the penalty; empty or null: it did not), fallback_moves, placements (in
    CSV JSON text: [card, row, col] per move), secret (the key that replays the run),
    version (the code that played it), time_per_game and prep_time (its limits in
    seconds). In CSV a text cell that starts with = + - @ or a tab gets a ' before it,
    so that a spreadsheet shows it instead of running it as a formula; JSON holds every
    value as stored.
    """
    if out is not None and export is None:
        raise fail("--out goes with --export csv|json (it is where the export is written)")
    if export is not None and export not in ("csv", "json"):
        raise fail(f"--export takes csv or json, got {export!r}")
    other = None if export is None else {"csv": ".json", "json": ".csv"}.get(export)
    # CSV in x.json: its readers fail
    if out is not None and export is not None and other is not None and out.suffix.lower() == other:
        raise fail(f"--out {str(out)!r} ends in {other}, but --export {export} writes {export.upper()}; "
                   f"give a name ending in .{export}, or --export {other.lstrip('.')}")
    if export is not None and (optima or json_out):  # the export's format is --export's; it holds no optima
        raise fail(f"{'--optima' if optima else '--json'} goes with the listings, not --export "
                   f"(the export is {export}, the games as stored)")
    if run is not None and tournament is not None:
        raise fail("give --run or --tournament, not both (a tournament's runs are listed with --tournament)")
    if not db.exists():
        raise fail(f"no result store at {db}")
    if out is not None:
        check_output(out, "--out", db=db, example=f"games.{export}")
    for path in optima or ():
        check_optima_store(path)
    optima = optima or None
    with ResultStore(db, readonly=True) as store:
        if export is not None:
            if tournament is not None:  # its games, not the store's
                store.tournament(tournament)  # one that is not there is an error, not an empty export
                runs = store.runs(tournament)
            else:
                runs = store.runs() if run is None else [store.run(run)]
            chunks = store.export_chunks(export, [r.run_id for r in runs])
            if out is None:
                for chunk in chunks:
                    typer.echo(chunk, nl=False)
            else:
                try:
                    with replacing(out) as tmp, open(tmp, "w", encoding="utf-8", newline="") as f:
                        f.writelines(chunks)
                except OSError as e:
                    raise fail(f"cannot write {out}: {e}") from None
                typer.echo(f"wrote {out}")
            return
        if tournament is not None:
            table = table_from_store(store, tournament)
            tour_runs = store.runs(tournament)
            table["optimum"] = {str(k): v for k, v in run_regrets(db, tour_runs, optima).items()}
            if json_out:
                typer.echo(json.dumps(table))
                return
            print_table(table)
            if not table["complete"]:
                _print_incomplete(store, tournament)
            _print_regret_lines(db, tour_runs, optima)
            return
        runs = store.runs() if run is None else [store.run(run)]
        tours = store.tournaments()
        secrets = store.run_secrets()  # the key that replays a run's players (run --secret)
    if json_out:
        regrets = run_regrets(db, runs, optima)
        typer.echo(json.dumps({"runs": [{**r.to_json(), "secret": secrets.get(r.run_id),
                                         "optimum": regrets.get(r.run_id)} for r in runs],
                               "tournaments": tours}))
        return
    # Names in full: a cut player spec or system name ("Three Of A Kin") names nothing.
    who = {r.run_id: shown_player(r) for r in runs}
    wp = max([20, *(len(w) for w in who.values())])
    # Two systems of one name ("custom": ten integers) told apart: custom, custom (2), ...
    from ..harness.compare import system_labels

    systems = system_labels(runs)
    wsys = max([14, *(len(name) for name in systems.values())])
    wv = max([7, *(len(r.version or "-") for r in runs)])
    wseed = max([8, *(len(str(r.seed)) for r in runs)])  # seeds are Java longs: up to 20 characters
    shown_secret = {r.run_id: secrets.get(r.run_id) or "-" for r in runs}
    wsec = max([6, *map(len, shown_secret.values())])
    typer.echo(f"{'run':>4} {'player':<{wp}} {'system':<{wsys}} {'seed':>{wseed}} {'games':>11} {'mean':>8} "
               f"{'penalties':>9} {'limit s':>7} {'fallback':>8} {'tournament':>10} {'version':<{wv}} {'secret':<{wsec}}")
    for r in runs:  # the secret last and whole: with the spec, limits and seed it replays the run
        mean = f"{r.mean:.2f}" if r.mean is not None else "-"
        typer.echo(f"{r.run_id:>4} {who[r.run_id]:<{wp}} {systems[tuple(r.points)]:<{wsys}} {r.seed:>{wseed}} "
                   f"{f'{r.finished}/{r.games}':>11} {mean:>8} {r.penalties:>9} {r.time_per_game:>7g} "
                   f"{r.fallback_moves:>8} {r.tournament_id or '':>10} {r.version or '-':<{wv}} "
                   f"{shown_secret[r.run_id]:<{wsec}}")
    if any(r.fallback_moves for r in runs):
        typer.echo("(fallback: moves a search left to its greedy fallback for lack of time)")
    _print_regret_lines(db, runs, optima)
    if len({tuple(r.points) for r in runs if r.finished}) < sum(1 for r in runs if r.finished):
        typer.echo(f"(two runs of one point system: `pokersquares compare {db}` compares them game by game)")
    for t in tours:
        n = len(t["systems"])
        typer.echo(f"tournament {t['tournament_id']}: {', '.join(t['players'])} on {n} system{'s' * (n != 1)}, "
                   f"{t['games']} game{'s' if t['games'] != 1 else ''} each (pokersquares results --tournament {t['tournament_id']})")


def _print_hand_mixes(mixes: list[dict]) -> None:
    """``compare --hands`` as text: per system, each run's lines and points per game by
    hand type, then each run minus the reference per hand type (points, ± paired SE)."""
    from ..harness.hands_made import HAND_ABBREVIATIONS

    heads = " ".join(f"{h:>7}" for h in HAND_ABBREVIATIONS)
    for i, mix in enumerate(mixes):
        w = max(len(r["label"]) for r in mix["runs"])
        typer.echo(("\n" if i else "") + f"{mix['system']}: hands made per game by type "
                   f"(points {', '.join(map(str, mix['points']))})")
        typer.echo(f"{'':<{w}}        {'games':>6} {heads} {'mean':>8}")
        for r in mix["runs"]:
            if not r["games"]:  # every game a penalty (or unfinished): no hand to count
                typer.echo(f"{r['label']:<{w}} lines  {0:>6}  no full grid: {r['left_out']} game(s) left out "
                           "(a penalty, or unfinished)")
                continue
            if r["score_mismatches"]:
                typer.echo(f"warning: {r['label']} on {mix['system']}: {r['score_mismatches']} grid(s) do not score "
                           "what their game recorded (a store edited by hand?); the table counts the grids",
                           err=True)
            left = f"  ({r['left_out']} left out: a penalty, or no full grid)" if r["left_out"] else ""
            if r["unproven"]:  # the best grid found, not the optimum: the text must not call it one
                left += f"  ({r['unproven']} of {r['games']} not proven optimal: the best grid found)"
            typer.echo(f"{r['label']:<{w}} lines  {r['games']:>6} "
                       + " ".join(f"{h['lines_per_game']:7.3f}" for h in r["hands"]) + f" {10:8.2f}{left}")
            typer.echo(f"{'':<{w}} points {'':>6} "
                       + " ".join(f"{h['points_per_game']:7.2f}" for h in r["hands"]) + f" {r['mean']:8.2f}")
        if not mix["differences"]:
            if sum(1 for r in mix["runs"] if r["games"]) > 1:  # said, not left out silently
                typer.echo(f"no run shares two deals with {mix['against']}: no difference by hand type")
            continue
        typer.echo(f"points per game by hand type, each run − {mix['against']}, paired on the deals both hold "
                   "(second line: SE):")
        for d in mix["differences"]:
            typer.echo(f"{d['a']:<{w}} {d['deals']:>6} deals "
                       + " ".join(f"{h['points']:+7.2f}" for h in d["hands"]) + f" {d['a_minus_b']:+8.2f}")
            typer.echo(f"{'':<{w}} {'':>6}       " + " ".join(f"{h['points_stderr']:7.2f}" for h in d["hands"])
                       + f" {d['stderr']:8.2f}")


@app.command("compare")
def compare_cmd(
    stores: list[Path] = typer.Argument(..., help="Result stores to read (read only)."),
    player: Optional[list[str]] = typer.Option(None, "--player", metavar="<str>", help="Only runs whose player spec contains this "
                                                                      "(repeatable)."),
    system: Optional[str] = typer.Option(None, "--system", help="Only runs of this point system: its name (as `results` lists it) or a spec of the same points (ameritish:34412016)."),
    hands: bool = typer.Option(False, "--hands", help="Which hands each run's grids made (lines and points per "
                                                      "game by hand type), and each run against a reference per "
                                                      "hand type: --against, else the deals' optima with "
                                                      "--optima, else the system's first run."),
    optima: Optional[list[Path]] = typer.Option(None, "--optima", metavar="<path>", help="With --hands: the deals' best grids from "
                                                "this store (pokersquares optimum --db); repeatable."),
    against: Optional[str] = typer.Option(None, "--against", help="With --hands: compare each run with the first "
                                                               "run whose player spec contains this (optimum: the "
                                                               "optima)."),
    json_out: bool = PLAIN_JSON_OPT,
) -> None:
    """Every run's mean, and every two runs of one point system compared game by game on
    the deals both played (mean difference ± SE, 95% interval)."""
    from ..harness.compare import compare_runs, load_runs

    for path in stores:
        if not path.exists():
            raise fail(f"no result store at {path}")
    if optima and not hands:
        raise fail("--optima goes with --hands (the optima's grids are what the hands are compared with)")
    if against is not None and not hands:
        raise fail("--against goes with --hands (the reference of the comparison by hand type)")
    for path in optima or ():
        check_optima_store(path)
    if system is not None and not system.strip():
        raise fail("--system is empty: give a point system's name (as `pokersquares results` lists it)")
    if any(not p.strip() for p in player or ()):
        raise fail("--player is empty: give a part of a player spec (it would match every run)")
    if against is not None and not against.strip():
        raise fail("--against is empty: give a part of a player spec, or optimum (it would match every run)")
    duplicates: list = []
    runs = load_runs(stores, player or (), system, duplicates)
    result = compare_runs(runs)
    if not result["runs"]:  # with --json too: an error, not an empty listing
        raise fail("no run with a finished game" + (" matches --player/--system" if player or system is not None else ""))
    copies: dict[tuple[str, str], list[str]] = {}
    for kept_store, kept_run, dropped_store, dropped_run in duplicates:
        copies.setdefault((dropped_store, kept_store), []).append(f"{dropped_run} = {kept_run}")
    for (dropped_store, kept_store), same in copies.items():
        typer.echo(f"note: {len(same)} run{'s' if len(same) != 1 else ''} of {dropped_store} "
                   f"{'are runs' if len(same) != 1 else 'is a run'} of {kept_store} (a copy of it?), "
                   f"each read once (runs {', '.join(same[:5])}{', ...' if len(same) > 5 else ''})", err=True)
    if hands:
        from ..harness.hands_made import compare_hands
        from ..optimum.store import OptimaStore
        if not optima:  # as `results`: optima stored beside the games count without --optima
            optima = []
            for path in stores:
                with OptimaStore(path, readonly=True) as held:
                    if held.systems():
                        optima.append(path)
        if against is not None and not (any(against in r.info.player for r in runs)
                                        or (against in "optimum" and optima)):
            raise fail(f"--against {against}: no run's player spec contains it"
                       + (" (the optima need --optima)" if against in "optimum" else ""))
        from ..harness.compare import CompareError
        try:
            mixes = compare_hands(runs, optima or (), against)
        except CompareError as e:  # --against names only runs without a grid
            raise fail(f"--against {against}: {e}") from None
        if not any(r["games"] for mix in mixes for r in mix["runs"]):  # with --json too
            raise fail("no run has a full grid to count hands in (every game a penalty, or unfinished)")
        if json_out:
            typer.echo(json.dumps({"systems": mixes}))
        else:
            _print_hand_mixes(mixes)
        return
    if json_out:
        typer.echo(json.dumps(result))
        return
    # Runs are named by id alone when one store was given: ids of two stores would be ambiguous.
    one_store = len({path.resolve() for path in stores}) == 1

    def run_label(store: str, run_id: int) -> str:
        return f"run {run_id}" if one_store else f"{store}:{run_id}"

    wl = max(len(run_label(r["store"], r["run"])) for r in result["runs"])
    wp = max(len(r["player"]) for r in result["runs"])
    for r in result["runs"]:
        se = "-" if r["stderr"] is None else f"{r['stderr']:.2f}"
        typer.echo(f"{run_label(r['store'], r['run']):<{wl}}  {r['player']:<{wp}} {r['system']:<16} {r['games']:>6} "
                   f"{'game ' if r['games'] == 1 else 'games'} {r['mean']:9.2f} ± {se}  {r['seconds_per_game']:.2f} s/game "
                   f"(max {r['max_seconds']:.2f})  {penalties_text(r['penalties'])}")
    if not result["paired"]:
        typer.echo("no two runs of one point system share two deals")
        return
    typer.echo("paired, game by game on the deals both played (95% interval: Student's t on the deals less one):")
    for d in result["paired"]:
        lo, hi = d["ci95"]
        typer.echo(f"  {d['system']}: {d['a']} ({run_label(*d['a_run'])}) − {d['b']} ({run_label(*d['b_run'])}): "
                   f"{d['a_minus_b']:+.2f} ± {d['stderr']:.2f} ({lo:+.2f} .. {hi:+.2f}), {d['deals']} deals")
