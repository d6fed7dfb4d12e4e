"""Point systems: the 10 integers, indexed by hand id, that a game is scored with.

Includes the contest's fixed systems, its Java-exact generators (Random,
Hypercorner, Single hand, Ameritish), the twelve contest systems, and
``parse_point_system`` for what users type on the command line.
"""

from __future__ import annotations

import sys

import numbers
import re
from dataclasses import dataclass, field
from typing import Sequence

from .cards import as_sequence
from .errors import InvalidPointSystemError, PokerSquaresError, did_you_mean
from .hands import HAND_NAMES, NUM_HANDS, HandId, parse_hand_name
from .javarandom import JavaRandom

__all__ = [
    "PointSystem", "AMERICAN", "BRITISH", "CONTEST_SEED",
    "random_system", "hypercorner_system", "single_hand_system", "random_single_hand_system",
    "ameritish_system", "contest_systems", "contest_specs", "contest_words", "CONTEST", "CONTEST_SHARED", "parse_point_system", "parse_point_systems", "split_point_system_specs", "unique_names",
    "clamped_values", "SPEC_HELP",
]

CONTEST_SEED = 34412016


def _clamp(v: int) -> int:
    return max(-128, min(127, v))


@dataclass(frozen=True)
class PointSystem:
    """Ten points, one per hand id, each clamped to [-128, 127]."""

    points: tuple[int, ...]
    name: str = field(default="custom", compare=False)

    def __post_init__(self) -> None:
        pts = as_sequence(self.points, "a point system's points", InvalidPointSystemError,
                          "parse_point_system reads text such as 'american' or '0,1,2,3,4,5,6,7,8,9'")
        if not isinstance(self.name, str):
            raise InvalidPointSystemError(f"a point system's name is text, got {self.name!r}")
        if len(pts) != NUM_HANDS:
            raise InvalidPointSystemError(f"a point system has 10 values, got {len(pts)}")
        for p in pts:
            # Python's integers and numpy's (which register as Integral); not bools
            # (numpy's are not Integral), floats or text.
            if isinstance(p, bool) or not isinstance(p, numbers.Integral):
                raise InvalidPointSystemError(f"point values must be integers, got {p!r}")
        object.__setattr__(self, "points", tuple(_clamp(int(p)) for p in pts))

    def __getitem__(self, hand: int) -> int:
        return self.points[hand]

    def __iter__(self):
        return iter(self.points)

    def __len__(self) -> int:
        return NUM_HANDS

    @property
    def min_points(self) -> int:
        return min(self.points)

    @property
    def penalty(self) -> int:
        """What a game scores after a timeout, illegal play or error: ``10 * min(points)``,
        and 0 where no hand scores below 0 (the contest's rule: a fault never scores
        points, even under a system whose every hand is worth some)."""
        return 10 * min(0, self.min_points)

    def table(self) -> list[tuple[int, str, int]]:
        return [(i, HAND_NAMES[i], p) for i, p in enumerate(self.points)]

    def to_json(self) -> dict:
        return {"name": self.name, "points": list(self.points)}

    @classmethod
    def from_json(cls, data: dict) -> "PointSystem":
        if not isinstance(data, dict) or "points" not in data:
            raise InvalidPointSystemError(f"a point system's JSON is an object with its 10 points, got {data!r}")
        return cls(data["points"], data.get("name", "custom"))  # checked there: JSON's object is no list


AMERICAN = PointSystem((0, 2, 5, 10, 15, 20, 25, 50, 75, 100), "American")
BRITISH = PointSystem((0, 1, 3, 6, 12, 5, 10, 16, 30, 30), "British")


def _rng(seed_or_rng: int | JavaRandom) -> JavaRandom:
    """A generator's ``java.util.Random``: the one given, or a new one seeded with an
    integer in a Java long's range (as :func:`_parse_seed` takes them from text): 5.5,
    "5" or True are not seed 5 or 1, and a larger seed would wrap silently onto another's
    system; else InvalidPointSystemError."""
    if isinstance(seed_or_rng, JavaRandom):
        return seed_or_rng
    return JavaRandom(_generator_seed(seed_or_rng))


def _generator_seed(seed: int) -> int:
    """``seed`` as an int if it is a Java long, else InvalidPointSystemError."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise InvalidPointSystemError(f"a generator's seed is an integer (a Java long) or a JavaRandom, "
                                      f"got {seed!r}")
    if not -2 ** 63 <= seed < 2 ** 63:
        raise InvalidPointSystemError(f"a generator's seed must be a Java long (-2**63 to 2**63-1), got {seed}")
    return int(seed)


def _named(name: str | None, default: str) -> str:
    """A generated system's name: ``name``, or ``default`` when it is None or empty."""
    if name is not None and not isinstance(name, str):
        raise InvalidPointSystemError(f"a point system's name is text, got {name!r}")
    return name or default


def random_system(seed: int | JavaRandom, name: str | None = None) -> PointSystem:
    rnd = _rng(seed)
    pts = tuple(rnd.next_int(256) - 128 for _ in range(NUM_HANDS))
    return PointSystem(pts, _named(name, "Random" if isinstance(seed, JavaRandom) else f"random:{int(seed)}"))


def hypercorner_system(seed: int | JavaRandom, name: str | None = None) -> PointSystem:
    rnd = _rng(seed)
    pts = tuple(1 if rnd.next_boolean() else -1 for _ in range(NUM_HANDS))
    return PointSystem(pts, _named(name, "Hypercorner" if isinstance(seed, JavaRandom) else f"hypercorner:{int(seed)}"))


def single_hand_system(hand: int | str, name: str | None = None) -> PointSystem:
    try:
        if not isinstance(hand, str) and (isinstance(hand, bool) or not isinstance(hand, numbers.Integral)):
            raise ValueError(hand)  # 3.0 or True is no hand id
        h = parse_hand_name(hand) if isinstance(hand, str) else HandId(hand)
    except ValueError as e:
        raise InvalidPointSystemError(f"{e}" if isinstance(hand, str) else
                                      f"a hand is a name or an id 0..{NUM_HANDS - 1}, got {hand!r}") from None
    pts = tuple(1 if i == h else 0 for i in range(NUM_HANDS))
    return PointSystem(pts, _named(name, HAND_NAMES[h].title()))


def random_single_hand_system(seed: int | JavaRandom) -> PointSystem:
    return single_hand_system(_rng(seed).next_int(NUM_HANDS))


def _java_round(x: float) -> int:
    # Math.round(double) is floor(x + 0.5).
    import math
    return math.floor(x + 0.5)


def ameritish_system(seed: int | JavaRandom, name: str | None = None) -> PointSystem:
    rnd = _rng(seed)
    top = rnd.next_int(71) + 30
    pts = [0] * NUM_HANDS
    for i in range(1, 9):
        a = AMERICAN[i] / 100
        b = BRITISH[i] / 30
        lo, hi = min(a, b), max(a, b)
        pts[i] = _java_round(top * (rnd.next_double() * (hi - lo) + lo))
    pts[9] = top
    return PointSystem(tuple(pts),
                       _named(name, "Ameritish" if isinstance(seed, JavaRandom) else f"ameritish:{int(seed)}"))


# The contest's seven single-hand systems, in its order.
_CONTEST_SINGLES = (HandId.HIGH_CARD, HandId.ONE_PAIR, HandId.TWO_PAIR, HandId.THREE_OF_A_KIND,
                    HandId.STRAIGHT, HandId.FLUSH, HandId.FULL_HOUSE)


# ``--systems`` words for the twelve: each generated system drawn on its own, or the
# three drawn in turn from one generator (see contest_systems).
CONTEST, CONTEST_SHARED = "contest", "contest:shared"


def contest_systems(seed: int = CONTEST_SEED, shared: bool = False) -> list[PointSystem]:
    """The twelve systems of the 2016 contest.

    The order of the framework's generator calls is not published. By default the
    generated systems (Ameritish, Hypercorner, Random) are each drawn from
    ``Random(seed)`` on its own (``--systems contest``, every recorded tournament here).
    ``shared=True`` draws them in turn, in the contest's order, from one generator seeded
    once (``--systems contest:shared``), as the framework's static generator is used by
    a testing template of a 2016 entrant's repository: Ameritish is the same either way,
    Hypercorner and Random are not (docs/contest-rules.md).
    """
    singles = [single_hand_system(h) for h in _CONTEST_SINGLES]
    one = JavaRandom(_generator_seed(seed)) if shared else None
    return [
        AMERICAN,
        ameritish_system(one or seed, "Ameritish"),
        BRITISH,
        hypercorner_system(one or seed, "Hypercorner"),
        random_system(one or seed, "Random"),
        *singles,
    ]


def contest_specs(seed: int = CONTEST_SEED, shared: bool = False) -> list[str]:
    """The twelve contest systems as specs (:func:`parse_point_system` reads each), in
    :func:`contest_systems`' order: for what takes specs, not systems (``serve --warm``);
    with ``shared``, Hypercorner and Random as their ten integers."""
    seed = _generator_seed(seed)  # None or 1.5 would make specs no parser reads
    if shared:
        drawn = contest_systems(seed, shared=True)
        hyper, rand = (",".join(map(str, drawn[i].points)) for i in (3, 4))
    else:
        hyper, rand = f"hypercorner:{seed}", f"random:{seed}"
    return ["american", f"ameritish:{seed}", "british", hyper, rand,
            *(f"single:{h.name.lower()}" for h in _CONTEST_SINGLES)]


def contest_words(part: str) -> tuple[bool, int] | None:
    """For one part of a list of systems: None if it does not name the twelve, else
    ``(shared, seed)``: whether it is the shared reading and the seed the generated three
    are drawn from. ``contest`` and ``contest:shared`` are 2016's (:data:`CONTEST_SEED`);
    ``contest:SEED`` and ``contest:shared:SEED`` a new edition's twelve, its Ameritish,
    Hypercorner and Random drawn from ``SEED`` as the contest drew its own."""
    words = [w.strip() for w in part.strip().lower().split(":")]
    if words[0] != CONTEST:
        return None
    shared = len(words) > 1 and words[1] == "shared"
    rest = words[1 + shared:]
    if not rest:
        return shared, CONTEST_SEED
    if len(rest) == 1 and integer_or_none(rest[0]) is not None:
        return shared, _parse_seed(rest[0], f"the seed of {':'.join(words[:1 + shared])}")
    raise InvalidPointSystemError(f"unknown reading {':'.join(words[1:])!r} of the contest's twelve systems: "
                                  f"'{CONTEST}', '{CONTEST_SHARED}', 'contest:SEED' or 'contest:shared:SEED'")


SPEC_HELP = (
    "american, british, ameritish:SEED, random:SEED, hypercorner:SEED, single:HAND "
    "(a hand name such as flush or full_house, or single:random:SEED), "
    "or ten comma-separated integers"
)


_INTEGER = re.compile(r"[+-]?[0-9]+")


def integer_or_none(text: str) -> int | None:
    """``text`` (spaces around it aside) as an integer written in ASCII digits with an
    optional sign, else None: stricter than ``int()``, which also takes ``1_000`` and
    digits of other scripts."""
    text = text.strip()
    if not _INTEGER.fullmatch(text):
        return None
    digits = len(text.lstrip("+-"))
    if 0 < sys.get_int_max_str_digits() < digits:  # int() refuses them (4,300 by default); no setting is near
        raise PokerSquaresError(f"an integer of {digits:,} digits is beyond every setting here")
    return int(text)


def _parse_int(text: str, what: str) -> int:
    value = integer_or_none(text)
    if value is None:
        raise InvalidPointSystemError(f"{what} must be an integer, got {text.strip()!r}")
    return value


def _parse_seed(text: str, what: str) -> int:
    """A generator's seed: a Java long, as the contest's generators take (a larger one
    would wrap silently onto another's system)."""
    value = _parse_int(text, what)
    if not -2 ** 63 <= value < 2 ** 63:
        raise InvalidPointSystemError(f"{what} must be a Java long (-2**63 to 2**63-1), got {value}")
    return value


def _check_spec(spec: str) -> str:
    if not isinstance(spec, str):
        raise InvalidPointSystemError(f"a point system spec is text such as 'american', got {spec!r}")
    return spec


# The names parse_point_system reads, and (_SPEC_KINDS) the first word of every named spec.
_AMERICAN_NAMES = ("american", "ameritish-american")
_BRITISH_NAMES = ("british", "english")
_GENERATORS = {"ameritish": ameritish_system, "random": random_system, "hypercorner": hypercorner_system}
_SPEC_KINDS = frozenset({*_AMERICAN_NAMES, *_BRITISH_NAMES, *_GENERATORS, "single", CONTEST})


def parse_point_system(spec: str) -> PointSystem:
    """Turn what a user typed into a point system; see ``SPEC_HELP``."""
    text = _check_spec(spec).strip()
    low = text.lower()
    if low in _AMERICAN_NAMES:
        return AMERICAN
    if low in _BRITISH_NAMES:
        return BRITISH
    if "," in text:
        parts = [p for p in text.split(",")]
        if len(parts) != NUM_HANDS:
            raise InvalidPointSystemError(
                f"a custom point system has 10 comma-separated integers, got {len(parts)}")
        return PointSystem(tuple(_parse_int(p, f"the points of {HAND_NAMES[i]} (value {i + 1} of 10)")
                                 for i, p in enumerate(parts)), "custom")
    kind, _, arg = low.partition(":")
    if kind in _GENERATORS:
        if not arg:
            raise InvalidPointSystemError(f"{kind} needs a seed, e.g. {kind}:42")
        return _GENERATORS[kind](_parse_seed(arg, f"the seed of {kind}"))
    if kind == "single":
        if arg.startswith("random:"):
            return random_single_hand_system(_parse_seed(arg[7:], "the seed of single:random"))
        try:
            return single_hand_system(arg)
        except ValueError as e:
            raise InvalidPointSystemError(str(e)) from None
    if kind == "contest":
        contest_words(spec)  # an unknown reading or a bad seed is said as such
        raise InvalidPointSystemError("'contest' names twelve systems; one point system is wanted here")
    raise InvalidPointSystemError(f"unknown point system {spec!r}{did_you_mean(kind, _SPEC_KINDS)}; "
                                  f"accepted: {SPEC_HELP}")


def clamped_values(spec: str, system: PointSystem) -> str:
    """For ten integers typed by the user: which were clamped into [-128, 127] and to
    what (``"500 -> 127"``), or '' when none was (or the spec is not ten integers)."""
    _check_spec(spec)
    if not isinstance(system, PointSystem):
        raise InvalidPointSystemError(f"clamped_values compares a spec with its PointSystem, got {system!r}")
    parts = spec.split(",")
    if len(parts) != NUM_HANDS:
        return ""
    typed = [integer_or_none(p) for p in parts]
    if None in typed:
        return ""
    return ", ".join(f"{t} -> {p}" for t, p in zip(typed, system.points) if t != p)


def split_point_system_specs(spec: str) -> list[str]:
    """The parts of a list of systems, as :func:`parse_point_systems` reads them: split on
    ``;`` if there is one; otherwise ten integers are one system, and so are parts mostly
    integers with no name among them (the parser then says what is wrong with them), and
    anything else is named specs separated by commas (``contest`` stays one part); an
    integer among names is an InvalidPointSystemError saying to separate with ``;``."""
    text = _check_spec(spec).strip()
    if ";" in text:
        return [p.strip() for p in text.split(";") if p.strip()]
    parts = [p.strip() for p in text.split(",")]
    if len(parts) == NUM_HANDS and all(p.lstrip("-+").isdigit() for p in parts):
        return [text]
    named = [p for p in parts if p.lower().partition(":")[0].strip() in _SPEC_KINDS]
    integers = [p for p in parts if integer_or_none(p) is not None]
    if not named and 2 * len(integers) > len(parts):
        # Point values miscounted or mistyped ("0,2,5,10,15,20,25,50,75"): one custom system,
        # whose parser says what is wrong with it, not "unknown point system '0'".
        return [text]
    if named and integers:
        raise InvalidPointSystemError(
            f"{integers[0]!r} is no point system: where one of the systems is ten integers, separate "
            f"the systems with ';' (e.g. 'american;0,1,2,3,4,5,6,7,8,9')")
    return [p for p in parts if p]




def parse_point_systems(spec: str) -> list[PointSystem]:
    """A list of systems: specs separated by ``;``, or by commas where each part is a
    named spec; a part ``contest`` (or ``contest:shared``, ``contest:SEED``,
    ``contest:shared:SEED``: :func:`contest_words`) stands for the twelve contest systems
    (:func:`contest_systems`)."""
    systems: list[PointSystem] = []
    for part in split_point_system_specs(spec):
        reading = contest_words(part)
        systems += [parse_point_system(part)] if reading is None else contest_systems(reading[1], shared=reading[0])
    return systems


def unique_names(systems: Sequence[PointSystem]) -> list[str]:
    """The systems' names, a repeated one numbered: ``custom``, ``custom (2)``, ..."""
    systems = as_sequence(systems, "point systems", InvalidPointSystemError, "parse_point_systems reads text")
    for s in systems:
        if not isinstance(s, PointSystem):
            raise InvalidPointSystemError(f"point systems are PointSystems (parse_point_system('american')), got {s!r}")
    names: list[str] = []
    for s in systems:
        name, k = s.name, 2
        while name in names:
            name, k = f"{s.name} ({k})", k + 1
        names.append(name)
    return names


