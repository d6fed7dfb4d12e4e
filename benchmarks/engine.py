"""Engine throughputs as JSON: the script behind ``pokersquares bench``.

    python benchmarks/engine.py [--repeats 5]
"""

import argparse
import json

from pokersquares.bench import BenchError, run_benchmarks

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--only", action="append")
    args = ap.parse_args()
    try:
        print(json.dumps(run_benchmarks(args.only, repeats=args.repeats)))
    except (BenchError, ValueError) as e:  # a repeat count or a name, refused before any benchmark runs
        ap.error(str(e))
