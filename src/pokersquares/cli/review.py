"""The review subcommand: recorded games, move by move, against a coach's evaluation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from ..cards import card_name
from ..errors import PokerSquaresError
from ..game import cell_of
from ..harness.spec import check_seconds
from ..harness.store import ResultStore
from .. import progress
from . import app, fail, seconds_between
from .harness import shown_player


def _cell(cell: int) -> str:
    row, col = cell_of(cell)
    return f"row {row}, col {col}"


def _unfinished(game) -> str:
    """Why a recorded game cannot be reviewed: how far it went, and its penalty."""
    return (f"{len(game.placements)} of 25 cards placed"
            + (f", scored the penalty ({(game.penalty.splitlines() or [''])[0]})" if game.penalty else ""))


def _check_record(run: int, record) -> None:
    """A finished game the review can judge, its cards those its seed deals (one line
    and exit 2 otherwise): a store edited by hand would be judged as another deal."""
    from ..cards import deal
    from ..review import record_placements

    shown = f"run {run}'s game dealt with seed {record.seed}"
    try:
        placements = record_placements(record)
        dealt = [int(c) for c in deal(record.seed)[:25]]
    except PokerSquaresError as e:
        raise fail(f"{shown} cannot be reviewed: {e}") from None
    if [card for card, _ in placements] != dealt:
        raise fail(f"{shown} cannot be reviewed: its cards are not the ones that seed deals, in that order "
                   "(the store was edited?)")


@app.command("review")
def review_cmd(
    store: Path = typer.Argument(..., help="The result store holding the games (read only)."),
    run: int = typer.Option(..., "--run", help="The run whose games to review (`pokersquares results` lists them)."),
    game: Optional[list[int]] = typer.Option(None, "--game", metavar="<int>", help="A game's deal seed (repeatable); default: every "
                                                                  "finished game of the run."),
    coach: str = typer.Option("champion", "--coach", help="The player whose evaluation judges the moves: one with an "
                                                          "evaluator (champion, td, gettysburg, beemo, ...; "
                                                          "champion:load=FILE plays a saved evaluator; pretrained "
                                                          "plays a prior learned offline for American and "
                                                          "British, with no preparation). One that learns for "
                                                          "its whole --prep-time (the default) gives other "
                                                          "numbers each time; one of fixed work "
                                                          "(gettysburg:games=200, champion:games=100,cores=1) "
                                                          "or a saved one, the same."),
    prep_time: float = typer.Option(30.0, "--prep-time", callback=seconds_between(0.0),
                                    help="Seconds the coach learns the run's point system, at least 0 "
                                         "(contest: 300)."),
    exact_cells: int = typer.Option(4, "--exact-cells", min=0, max=5,
                                    help="Judge exactly (expectimax over the undealt cards) when this many empty "
                                         "cells or fewer are left (4: milliseconds a game; 5: seconds)."),
    worst: int = typer.Option(3, "--worst", min=0, help="The costliest moves to list per game (one game reviewed: every move is listed)."),
    json_out: bool = typer.Option(False, "--json", help="Print machine-readable JSON."),
) -> None:
    """Each move of recorded games judged by a coach: the value of the cell played against
    the coach's best (its estimate of the final score; exact over the last cards), the
    points each move gave away, and where in the game they went."""
    from ..harness.spec import check_loaded_points
    from ..review import coach_values, make_coach, prepare_coach, review_record, run_summary

    check_seconds(prep_time, "--prep-time", zero_ok=True)
    if not store.exists():
        raise fail(f"no result store at {store}")
    with ResultStore(store, readonly=True) as db:
        # A store whose runs cannot be read (points edited by hand) says so; it is not "no run".
        info = next((r for r in db.runs() if r.run_id == run), None)
        if info is None:
            raise fail(f"{store} has no run {run} (`pokersquares results --db {store}` lists them)")
        # Every game of the run, or only those dealt with the seeds asked for: one game of a
        # run of 100,000 is not found by reading (and holding) all of them.
        recorded = db.games(run, game or None)
        played = db.seeds_played(run)
    finished = [g for g in recorded if len(g.placements) == 25]
    for seed in dict.fromkeys(game or ()):
        dealt = [g for g in recorded if g.seed == seed]
        if not dealt:
            raise fail(f"run {run} has no finished game dealt with seed {seed} ("
                       + (f"it played seeds {played[1]}..{played[2]})" if played[0] else "it has no game)"))
        if not any(len(g.placements) == 25 for g in dealt):
            raise fail(f"run {run}'s game dealt with seed {seed} is not finished: {_unfinished(dealt[0])}")
    if not finished:
        some = "its one game is not" if len(recorded) == 1 else f"none of its {len(recorded)} games is"
        unfinished = (f": {some} finished (seed {recorded[0].seed}: {_unfinished(recorded[0])})" if recorded else "")
        raise fail(f"run {run} has no finished game to review{unfinished}")
    # A deal played twice, as a person may in the web app, is reviewed twice.
    records = finished
    # The run's penalised or unfinished games have no whole game to judge: said, so that
    # the review's mean score is not taken for the run's (which counts their penalties).
    skipped = [g for g in recorded if len(g.placements) != 25]
    for record in records:  # a damaged game is named before the coach learns, not after
        _check_record(run, record)
    from ..points import PointSystem

    system = PointSystem(tuple(info.points), info.system_name)
    player = make_coach(coach)  # a coach that cannot judge is refused before it learns
    # A saved state of other points would be dropped and learned anew (nothing in 0 s): the
    # review would be an untrained coach's, under the name of the file given.
    check_loaded_points(coach, system, player)
    subject = f"preparing {coach} for {system.name}"
    with progress.listening(progress.with_subject(subject)):
        prepare_coach(player, system, prep_time)
    progress.report("done", subject=subject, force=True)  # the line ends before the review
    # A coach of fixed work (gettysburg:games=2000) learned its games whatever the budget.
    learns_in_budget = getattr(getattr(player, "evaluator", None), "learns_within_budget", True) is not False
    if prep_time == 0 and learns_in_budget and "load=" not in coach and getattr(player, "prior", None) is None:
        # What judges instead: below 0.2 s a learner plays the greedy rule (coach_values then
        # gives the rule's sampled values), else its evaluator as it is, untrained.
        instead = ("the greedy rule's, played on over sampled deals, not a learned evaluator's"
                   if getattr(player, "plays_greedy_rule", False) else "an untrained evaluator's")
        if hasattr(player, "priors"):  # pretrained, on a system it has no prior for: not told to try pretrained
            typer.echo(f"note: {coach} has no prior for {system.name} (the shipped ones are American and British) "
                       f"and learns nothing in 0 s of preparation: its values are {instead} (give --prep-time)",
                       err=True)
        else:
            typer.echo(f"note: {coach} learns nothing in 0 s of preparation: its values are {instead} (give "
                       "--prep-time, load=FILE a saved one, or --coach pretrained, which has priors for American "
                       "and British)", err=True)
    values = coach_values(player)
    reviews = [review_record(values, info.points, record, exact_cells) for record in records]
    summary = run_summary(reviews)
    if json_out:
        typer.echo(json.dumps({"store": str(store), "run": run, "player": info.player,
                               "player_name": info.player_name, "system": system.name,
                               "coach": coach, "prep_time": prep_time, "exact_cells": exact_cells,
                               "summary": summary, "games": [r.to_json() for r in reviews],
                               "not_reviewed": [{"seed": g.seed, "placed": len(g.placements), "score": g.score,
                                                 "penalty": g.penalty} for g in skipped]}))
        return
    typer.echo(f"run {run}: {shown_player(info)} on {system.name}, judged by {coach} ({prep_time:g} s of preparation; "
               f"exact with {exact_cells} empty cells or fewer)")
    if skipped:
        penalised = sum(1 for g in skipped if g.penalty)
        typer.echo(f"not reviewed: {len(skipped)} of the {len(recorded)} games asked for, unfinished"
                   + (f" ({penalised} penalised)" if penalised else "")
                   + ": seeds " + ", ".join(str(g.seed) for g in skipped[:10])
                   + (f" and {len(skipped) - 10} more" if len(skipped) > 10 else ""))
    if len(reviews) == 1:
        r = reviews[0]
        typer.echo(f"deal {r.seed}: score {r.score}; {r.agreed} of 25 moves as the coach would; "
                   f"points given away by the coach's values: {r.loss:.2f}")
        for m in r.moves:
            move = f"{m.turn:2d}. {card_name(m.card)} -> {_cell(m.cell)}"
            if m.agrees:
                typer.echo(f"{move:<28} {m.value:8.2f}" + ("  exact" if m.exact else ""))
            else:
                typer.echo(f"{move:<28} {m.value:8.2f}  coach: {_cell(m.best)} {m.best_value:8.2f}  "
                           f"-{m.loss:.2f}" + ("  exact" if m.exact else ""))
        return
    for r in reviews:
        costly = ", ".join(f"move {m.turn} -{m.loss:.2f}" for m in r.worst(worst))
        typer.echo(f"deal {r.seed:>6}: score {r.score:4d}  given away {r.loss:7.2f}  agreed {r.agreed:2d}/25"
                   + (f"  ({costly})" if costly else ""))
    se = "-" if summary["loss_se"] is None else f"{summary['loss_se']:.2f}"
    typer.echo(f"{summary['games']} games: mean score {summary['mean_score']:.2f}; given away {summary['mean_loss']:.2f} "
               f"± {se} a game; {100 * summary['agreement']:.1f}% of moves as the coach would")
    typer.echo("given away a game, by moves: " + ", ".join(f"{k}: {v:.2f}" for k, v in summary["stage_loss"].items()))
