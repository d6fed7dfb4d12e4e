"""Parameter sweeps: one player over a grid (or a random sample) of its parameters.

Parameters go through the player spec syntax, so any registered player can be
swept: ``greedy`` with ``flush_weight=0,0.25,0.5,1`` plays the runs
``greedy:flush_weight=0``, ``greedy:flush_weight=0.25``, ... Every setting is a run
in the result store (so a sweep resumes), and every setting plays the same deals
(game ``i`` from seed ``seed + i``): differences between settings are then not
differences in luck of the deal. The summary per setting is the mean score with
its standard error, which :func:`plot_sweep` draws like Tiger's Figs. 1 to 3.
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
from dataclasses import dataclass
from typing import Any, Callable

from ..errors import PokerSquaresError
from ..harness.registry import _parse_value, checked_player, one_build_per_spec, parse_player_spec, text_parameters
from ..harness.runner import DEFAULT_MEMORY_MB, RunSpec, held_spelling, record_runs
from ..harness.store import GameRecord, ResultStore
from ..points import PointSystem

__all__ = ["SweepError", "ParamRange", "parse_param", "settings", "setting_spec", "run_sweep",
           "plot_sweep"]


# The most settings one sweep plays: beyond it a typo, not a plan (each setting is a run).
MAX_SETTINGS = 10_000


class SweepError(PokerSquaresError):
    """A sweep parameter that cannot be parsed or used."""


@dataclass(frozen=True)
class ParamRange:
    """A range ``lo..hi`` to draw from (``--sample`` only): integers if both ends are
    written as integers (``10..200``), else real numbers (``0.0..1.0``)."""

    lo: float
    hi: float
    integer: bool

    def draw(self, rng: random.Random) -> int | float:
        if self.integer:
            return rng.randint(int(self.lo), int(self.hi))
        return float(f"{rng.uniform(self.lo, self.hi):.4g}")  # readable, stable specs


def _number(text: str, what: str) -> int | float:
    value = _parse_value(text.strip())
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SweepError(f"{what}: {text!r} is not a number")
    return value


def _value_key(value) -> tuple:
    """What makes two listed values one: numbers by value (1 and 1.0 play the same games;
    Python compares ints and floats exactly), true/false and text by what they are."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return type(value).__name__, value
    return "number", value


def parse_param(text: str) -> tuple[str, list | ParamRange]:
    """``name=v1,v2,...`` (values), ``name=lo..hi/n`` (n evenly spaced values) or
    ``name=lo..hi`` (a range to sample from)."""
    name, eq, values = text.partition("=")
    name = name.strip().replace("-", "_")
    if not eq or not name or not values.strip():
        raise SweepError(f"--param {text!r} is not name=values (e.g. alpha=0.1,0.2 or alpha=0..1/5)")
    if "..." in values:  # 0...1: 0 to .1, or 0. to .1, or a typo of 0..1; which, it cannot tell
        raise SweepError(f"--param {name}: {values.strip()!r} has three dots; write a range as lo..hi (e.g. 0..1/5)")
    if ".." in values:
        span, slash, count = values.partition("/")
        lo_text, _, hi_text = span.partition("..")
        lo, hi = _number(lo_text, f"--param {name}"), _number(hi_text, f"--param {name}")
        if hi < lo:
            raise SweepError(f"--param {name}: the range {lo}..{hi} is empty")
        if not slash:
            return name, ParamRange(lo, hi, isinstance(lo, int) and isinstance(hi, int))
        n = _number(count, f"--param {name} (count after /)")
        if not isinstance(n, int) or n < 1:
            raise SweepError(f"--param {name}: the count after / must be a positive integer")
        if n > MAX_SETTINGS:
            raise SweepError(f"--param {name}: {n:,} values is over the limit of {MAX_SETTINGS:,} settings per sweep")
        if n == 1:
            return name, [lo]
        step = (hi - lo) / (n - 1)
        if not math.isfinite(step):  # -1e308..1e308: hi - lo overflows, every value NaN
            raise SweepError(f"--param {name}: the range {lo}..{hi} is too wide to split into {n} values")
        spaced = [float(f"{lo + k * step:.6g}") for k in range(n)]
        if len(set(spaced)) < n:  # written to 6 digits, 1..1.000001/3 is 1.0 three times: one run shown thrice
            raise SweepError(f"--param {name}: {n} values from {lo} to {hi} are not distinct to 6 significant "
                             "digits; give fewer values or a wider range")
        return name, spaced
    parsed = [_parse_value(v.strip()) for v in values.split(",") if v.strip()]
    if not parsed:  # an empty grid: nothing to play, nothing to show
        raise SweepError(f"--param {name} lists no value (e.g. {name}=0.1,0.2)")
    for v in parsed:
        if isinstance(v, str) and any(c in v for c in ",=:"):
            raise SweepError(f"--param {name}: value {v!r} cannot go in a player spec")
    if len(set(map(_value_key, parsed))) != len(parsed):
        raise SweepError(f"--param {name} lists a value twice")
    return name, parsed


def _combination(lists: list[list], index: int) -> tuple:
    """The ``index``-th combination of ``itertools.product(*lists)``, without making the others."""
    combo = []
    for values in reversed(lists):
        index, k = divmod(index, len(values))
        combo.append(values[k])
    return tuple(reversed(combo))


def _distinct_indices(rng: random.Random, size: int, k: int) -> list[int]:
    """``k`` distinct indices below ``size``, drawn as ``rng.sample(range(size), k)`` draws them
    (which cannot take a range longer than ``sys.maxsize``: then drawn one by one, as
    ``random.sample`` does for a population that large)."""
    try:
        return rng.sample(range(size), k)
    except OverflowError:
        picked: dict[int, None] = {}
        while len(picked) < k:
            picked.setdefault(rng.randrange(size))
        return list(picked)


def settings(params: dict[str, list | ParamRange], sample: int | None = None, seed: int = 0) -> list[dict]:
    """The grid of all combinations, or ``sample`` settings drawn at random: distinct grid
    points when every parameter lists its values, independent draws when one is a range.

    A sample is drawn with the parameters in the order of their names, whatever order
    ``params`` gives them in (each setting lists them in that order): the same names,
    values (each parameter's in the order listed), ``sample`` and ``seed`` draw the same
    settings (until 2026-12-06 the draw followed ``params``' order).
    Grid points are drawn as their indices in the grid's order (the last parameter's
    values vary fastest), ``rng.sample(range(size), k)``, and only the drawn ones are
    made: a grid of 10,000 values of each of two parameters (10^8 settings) is never
    listed."""
    if not params:
        raise SweepError("a sweep needs at least one --param")
    names = list(params)
    listed = {n: v for n, v in params.items() if not isinstance(v, ParamRange)}
    ranges = {n: v for n, v in params.items() if isinstance(v, ParamRange)}
    ranged = [n for n in names if n in ranges]
    if sample is not None and not 1 <= sample <= MAX_SETTINGS:
        raise SweepError(f"--sample must be from 1 to {MAX_SETTINGS:,}")
    size = math.prod(len(listed[n]) for n in names if n in listed)
    if sample is None:
        if ranged:
            raise SweepError(f"--param {ranged[0]} is a range: give its count (lo..hi/n) or use --sample")
        if size > MAX_SETTINGS:
            raise SweepError(f"the grid has {size:,} settings, over the limit of {MAX_SETTINGS:,}; "
                             "use fewer values or --sample")
        return [dict(zip(names, combo)) for combo in itertools.product(*(listed[n] for n in names))]
    rng = random.Random(seed)
    order = sorted(names)
    if not ranged:
        lists = [listed[n] for n in order]
        picked = sorted(_distinct_indices(rng, size, min(sample, size)))
        drawn = [dict(zip(order, _combination(lists, i))) for i in picked]
    else:
        out: dict[str, dict] = {}  # by spec text: a setting drawn twice is one run
        for _ in range(100 * sample):
            s = {n: ranges[n].draw(rng) if n in ranges else rng.choice(listed[n]) for n in order}
            out.setdefault(repr(s), s)
            if len(out) == sample:
                break
        drawn = list(out.values())
    return [{n: s[n] for n in names} for s in drawn]


def _format(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def setting_spec(player: str, setting: dict) -> str:
    """The player spec of one setting: the base spec's parameters, then the setting's."""
    name, base = parse_player_spec(player)
    # A parameter that takes text keeps it as written (load=007 names the file 007); the
    # others are written as the sweep always wrote them, so that earlier sweeps resume.
    text = {k: v for k, v in getattr(base, "text", {}).items() if k in text_parameters(name)}
    params = {**{k: text.get(k, _format(v)) for k, v in base.items()}, **{k: _format(v) for k, v in setting.items()}}
    return f"{name}:" + ",".join(f"{k}={v}" for k, v in params.items())


def _summary(setting: dict, spec: str, run_id: int, records: list[GameRecord]) -> dict:
    scores = [r.score for r in records]
    n = len(scores)
    sd = statistics.stdev(scores) if n > 1 else math.nan  # one game has no spread to tell (not 0)
    return {"params": setting, "player": spec, "run_id": run_id, "games": n,
            "mean": statistics.fmean(scores) if n else math.nan,
            "stderr": sd / math.sqrt(n) if n else math.nan, "stdev": sd,
            "penalties": sum(1 for r in records if r.penalty)}


@one_build_per_spec()  # each setting's player built once for this call's checks (record_runs' too)
def run_sweep(player: str, grid: list[dict], point_system: PointSystem, games: int, seed: int,
              store: ResultStore, *, time_per_game: float = 30.0, prep_time: float = 300.0,
              workers: int | None = None, backend: str = "local", address: str | None = None,
              on_result: Callable[[int, GameRecord], None] | None = None,
              memory_mb: int = DEFAULT_MEMORY_MB,
              on_held: Callable[[int, list[GameRecord]], None] | None = None,
              secret: str | None = None) -> list[dict]:
    """Play ``games`` games of every setting (resuming what the store holds) and return,
    per setting in order, ``{params, player, run_id, games, mean, stderr, stdev, penalties}``.
    ``on_held(k, records)``: setting ``k``'s games the store already holds (not played again).
    ``secret``: the key of every setting's player seeds (:class:`RunSpec`), else one each."""
    specs = [setting_spec(player, s) for s in grid]
    for spec in specs:
        checked_player(spec)  # a parameter the player does not take fails here, before anything runs
    # As the store's run of each setting writes it (--param options in another order).
    specs = [held_spelling(store, spec, seed, time_per_game, prep_time, system=point_system) for spec in specs]
    runs = [RunSpec(spec, point_system, games, seed, time_per_game, prep_time, memory_mb, secret) for spec in specs]
    results = record_runs(runs, store, workers=workers, on_result=on_result, backend=backend, address=address,
                          on_held=on_held)
    return [_summary(s, spec, run_id, recs) for s, spec, (run_id, recs) in zip(grid, specs, results)]


def plot_sweep(rows: list[dict], path: str, title: str) -> None:
    """Mean score with standard error per setting, as a PNG.

    One swept parameter: mean against its value, like Tiger's Fig. 1 (C_p). Several:
    each parameter's value against the setting's mean score, like Figs. 2 and 3, so
    the settings that score best show which values they share."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [n for n in rows[0]["params"] if len({repr(r["params"][n]) for r in rows}) > 1] or list(rows[0]["params"])
    means = [r["mean"] for r in rows]
    errs = [r["stderr"] for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    numeric = all(isinstance(r["params"][n], (int, float)) and not isinstance(r["params"][n], bool)
                  for r in rows for n in names)
    if len(names) == 1:
        name = names[0]
        order = sorted(range(len(rows)), key=lambda i: rows[i]["params"][name]) if numeric else range(len(rows))
        xs = [rows[i]["params"][name] for i in order]
        pos = xs if numeric else list(range(len(xs)))
        ax.errorbar(pos, [means[i] for i in order], yerr=[errs[i] for i in order], marker="o", capsize=3)
        if not numeric:
            ax.set_xticks(pos, [str(x) for x in xs])
        ax.set_xlabel(name)
        ax.set_ylabel("mean score (± standard error)")
    else:
        markers = "os^Dvx*+<>"
        for k, name in enumerate(names):
            ys = [r["params"][name] for r in rows]
            ax.errorbar(means, ys if numeric else [str(y) for y in ys], xerr=errs, linestyle="none",
                        marker=markers[k % len(markers)], capsize=2, label=name)
        ax.set_xlabel("mean score (± standard error)")
        ax.set_ylabel("parameter value")
        ax.legend()
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=120, format="png")
    except OSError as e:
        raise SweepError(f"cannot write the plot {path}: {e}") from None
    finally:
        plt.close(fig)
