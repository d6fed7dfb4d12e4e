"""Deliberate breaks of the agents' mechanisms, and whether the tests catch each.

Each mutant in ``tests/mutants/mutants.json`` is a plausible wrong change: one exact
text replacement in one source file, and the test files that should notice. The
script copies ``src/``, ``tests/`` and ``benchmarks/`` once into a temporary directory,
then for each mutant applies it to the copy, runs its tests there (``PYTHONPATH``
pointing at the copy), and restores the file. A mutant is *caught* when the tests fail.

    python benchmarks/mutants.py                 # all, a table and a JSON summary
    python benchmarks/mutants.py --only pruning  # some, by name
    python benchmarks/mutants.py --json          # JSON only
    python benchmarks/mutants.py --file new.json # a batch of new ones, before they join the list

Exit status 1 when a mutant survives or no longer applies (its text was not found:
the source changed under it, so the mutant must be updated). The copy keeps numba's
cache between mutants, so only the mutated module's kernels compile again (for a mutant
of a kernel module or ``game``, every kernel: each kernel's cache is stamped with them
all, ``pokersquares.kernels.cache``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MUTANTS = ROOT / "tests" / "mutants" / "mutants.json"


def load_mutants(only: list[str] | None = None, path: Path = MUTANTS) -> list[dict]:
    try:
        mutants = json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        raise ValueError(f"cannot read the mutants in {path}: {e}") from None
    if not isinstance(mutants, list) or not all(isinstance(m, dict) and {"name", "file", "old", "new", "tests"} <= m.keys()
                                                for m in mutants):
        raise ValueError(f"{path} is not a list of mutants (each with name, file, old, new and tests)")
    if only:
        unknown = set(only) - {m["name"] for m in mutants}
        if unknown:
            raise ValueError(f"unknown mutants: {', '.join(sorted(unknown))}")
        mutants = [m for m in mutants if m["name"] in only]
    return mutants


def run_mutant(copy: Path, mutant: dict, timeout_s: float) -> dict:
    path = copy / mutant["file"]
    if not path.is_file():
        return {"name": mutant["name"], "status": "stale", "detail": f"{mutant['file']} is not in the copy"}
    original = path.read_text()
    old, new = mutant["old"], mutant["new"]
    if original.count(old) != 1:
        return {"name": mutant["name"], "status": "stale",
                "detail": f"the text to replace occurs {original.count(old)} times in {mutant['file']}"}
    path.write_text(original.replace(old, new))
    env = {**os.environ, "PYTHONPATH": str(copy / "src")}
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *mutant["tests"]]
    if mutant.get("k"):
        cmd += ["-k", mutant["k"]]
    t = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, text=True, timeout=timeout_s)
        failed = [line.split(" ")[1] for line in proc.stdout.splitlines() if line.startswith("FAILED ")]
        status = "caught" if proc.returncode == 1 and failed else ("survived" if proc.returncode == 0 else "error")
        detail = failed[0] if failed else proc.stdout.strip().splitlines()[-1:] or [proc.stderr[-300:]]
    except subprocess.TimeoutExpired:
        status, detail = "error", f"tests did not finish in {timeout_s:.0f} s"
    finally:
        path.write_text(original)
    return {"name": mutant["name"], "status": status, "detail": detail if isinstance(detail, str) else detail[0],
            "seconds": round(time.perf_counter() - t, 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="*", help="mutant names")
    parser.add_argument("--json", action="store_true", help="print JSON only")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per mutant's tests")
    parser.add_argument("--file", type=Path, default=MUTANTS,
                        help="a JSON list of mutants to run instead of tests/mutants/mutants.json "
                             "(new ones, checked before they join it)")
    args = parser.parse_args()
    try:
        mutants = load_mutants(args.only, args.file)
    except ValueError as e:
        parser.error(str(e))
    results = []
    with tempfile.TemporaryDirectory(prefix="pokersquares-mutants-") as tmp:
        copy = Path(tmp)
        # benchmarks: its scripts are mutated too; README.md and docs: what the docs' tests read;
        # the license, citation and changelog: what the packaging tests read
        for part in ("src", "tests", "benchmarks", "pyproject.toml", "README.md", "docs", "LICENSE", "CITATION.cff",
                     "CHANGELOG.md"):
            src = ROOT / part
            if src.is_dir():
                shutil.copytree(src, copy / part, ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
            else:
                shutil.copy(src, copy / part)
        for mutant in mutants:
            result = run_mutant(copy, mutant, args.timeout)
            result["mechanism"] = mutant.get("mechanism", "")
            results.append(result)
            if not args.json:
                print(f"{result['status']:9} {mutant['name']:28} {result.get('seconds', 0):7.1f} s  {result['detail']}",
                      flush=True)
    summary = {"mutants": len(results), "caught": sum(r["status"] == "caught" for r in results),
               "results": results}
    print(json.dumps(summary, indent=1))
    return 0 if summary["caught"] == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
