"""Screening OG learning variants (issue 18 item 5); one JSON line on stdout.

    PS_OG_RULES=5 NUMBA_CACHE_DIR=/tmp/nc_5 ROUNDS=60 python benchmarks/og_variants.py LABEL 10000 '{"ucb_c": 0.1}'

Learns American utilities on one thread (``learn_utilities(..., threads=1)``, options
from the JSON argument; ``ROUNDS`` caps the rounds, the second argument is the budget
in seconds), then plays OG on them on the contest deals of seeds 0..GAMES-1
(``og_games_from_deals``, ties seeded 12345) and saves the per-deal scores, the
utilities and the visit counts in ``OUT`` (default ``.``) for paired comparisons.
``hist_*`` summarise the rounds' own evaluation means (5,000 random games each).

``PS_OG_RULES`` selects the rules under test in ``kernels/patterns.py`` as a bit mask;
the kernel reads it at import, only in the commit that added this script (it was
reverted after screening): 1 ties between cells to the first best cell, 2 the card in
hand counted as undealt, 4 a line's pattern credited after every move (no dedup), 8
complete hands with deck context, 16 empty hands with the context of the ace, the two
and clubs, 32 patterns credited only when a card joins the line, 64 primary-rank ties
to the lowest rank, 256 a time field (cards dealt, 4 buckets of 6; 2^18 patterns).
Each setting needs its own ``NUMBA_CACHE_DIR``: the rules are compile-time constants.
"""

import json
import math
import os
import sys
import time

import numpy as np

from pokersquares.cards import deal
from pokersquares.evaluators import patterns as ep
from pokersquares.kernels import patterns as kp
from pokersquares.points import parse_point_system

if len(sys.argv) < 3 or sys.argv[1] in ("-h", "--help"):
    sys.exit(f"usage: python {sys.argv[0]} LABEL SECONDS [OPTIONS_JSON]\n" + __doc__.strip().splitlines()[0])
label = sys.argv[1]
try:
    seconds, opts = float(sys.argv[2]), json.loads(sys.argv[3] if len(sys.argv) > 3 else "{}")
except ValueError as e:  # json.JSONDecodeError is one
    sys.exit(f"og_variants: SECONDS is a number and OPTIONS_JSON a JSON object: {e}")
if not 0 < seconds < math.inf or not isinstance(opts, dict):
    sys.exit(f"og_variants: SECONDS must be a finite number > 0 and OPTIONS_JSON a JSON object, got {sys.argv[2:]}")
games = int(os.environ.get("GAMES", 10000))
out_dir = os.environ.get("OUT", ".")
points = np.array(parse_point_system("american").points, dtype=np.int64)
if os.environ.get("ROUNDS"):
    opts["max_rounds"] = int(os.environ["ROUNDS"])
load_before = os.getloadavg()
start = time.time()
u, n, report = ep.learn_utilities(points, seconds, 0, threads=1, **opts)
took = time.time() - start
deals = np.array([deal(s)[:25] for s in range(games)], dtype=np.int8)
scores = kp.og_games_from_deals(u, points, deals, 12345)
for suffix, array in (("", scores), ("_u", u), ("_n", n)):
    np.save(os.path.join(out_dir, f"{label}{suffix}.npy"), array)
h = np.array(report.history)
print(json.dumps(dict(
    label=label, rules=os.environ.get("PS_OG_RULES", "0"), opts=opts, seconds=round(took, 1),
    mean=round(float(scores.mean()), 3), se=round(float(scores.std(ddof=1) / np.sqrt(games)), 3), games=games,
    patterns=int((n > 0).sum()), rounds=report.rounds,
    hist_mean=round(float(h.mean()), 3) if len(h) else None, hist_sd=round(float(h.std()), 3) if len(h) else None,
    hist_max=round(float(h.max()), 3) if len(h) else None,
    load=[round(x, 2) for x in load_before + os.getloadavg()])))
