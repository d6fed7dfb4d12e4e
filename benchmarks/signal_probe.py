"""Probe: stop signals at random moments in long-running commands (not a test).

usage: PYTHONPATH=src python benchmarks/signal_probe.py OUT.jsonl [REPS] [COMMAND_NAME ...]
(PROBE_LONGEST=SECONDS: every command's longest delay; PROBE_SEED: the draws' seed)

Each repetition starts one command in a fresh process (and session, so whatever it leaves
behind can be found by session id), as a terminal would (SIGINT and SIGHUP at their
defaults), waits a random delay (log-uniform between 0.05 s and the command's upper
bound), sends SIGINT, SIGTERM or SIGHUP to the process alone, and writes one JSON line:
the time from the signal to the exit, the exit code, the last stderr line, whether a
traceback (or "Exception ignored") appeared, which processes of its session outlived it,
and, for result-store commands (sometimes), whether a rerun without signal ends cleanly.
Start two busy processes beside it (``python -c 'while True: pass' &`` twice): the races
show under load.
"""

import json
import math
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

STOPS = {signal.SIGINT: (130, "interrupted"), signal.SIGTERM: (143, "terminated"), signal.SIGHUP: (129, "hung up")}

# name: (arguments, longest delay before the signal, result store command?)
COMMANDS = {
    "run_greedy": (["run", "-p", "greedy", "-n", "50", "--time-per-game", "0.2", "--prep-time", "0",
                    "--db", "{d}/r.sqlite", "-q"], 6, True),
    "run_champion": (["run", "-p", "champion", "-n", "4", "--time-per-game", "1", "--prep-time", "3",
                      "--db", "{d}/r.sqlite", "-q"], 10, True),
    "run_og": (["run", "-p", "og:learn_threads=2", "--prep-time", "5", "-n", "4", "--time-per-game", "1",
                "--db", "{d}/r.sqlite", "-q"], 10, True),
    "run_gettysburg": (["run", "-p", "gettysburg", "--prep-time", "5", "-n", "4", "--time-per-game", "1",
                        "--db", "{d}/r.sqlite", "-q"], 10, True),
    "train_champion": (["train", "--player", "champion", "--system", "american", "--prep-time", "10",
                        "--out", "{d}/x.npz"], 12, False),
    "train_gettysburg": (["train", "--player", "gettysburg", "--system", "british", "--prep-time", "10",
                          "--out", "{d}/g.npz"], 12, False),
    "train_beemo": (["train", "--player", "beemo", "--system", "american", "--prep-time", "10",
                     "--out", "{d}/b.json"], 12, False),
    "tournament": (["tournament", "--players", "greedy,random", "--systems", "american,british", "-n", "10",
                    "--time-per-game", "0.2", "--prep-time", "0", "--db", "{d}/r.sqlite", "-q"], 6, True),
    "optimum": (["optimum", "--seeds", "0..20", "--workers", "2", "--time-limit", "2", "--db", "{d}/o.sqlite"],
                10, True),
    "sweep": (["sweep", "-p", "greedy", "--param", "flush_weight=0.5,1,2", "-n", "6", "--time-per-game", "0.2",
               "--prep-time", "0", "--db", "{d}/r.sqlite", "-q"], 6, True),
    "experiment": (["experiment", "tiger", "-n", "2", "--time-per-game", "0.2", "--prep-time", "0",
                    "--parts", "table3", "--rows", "1,6", "--db", "{d}/r.sqlite"], 8, True),
}


def as_in_a_terminal() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def session_members(sid: int) -> list[str]:
    """Live (not zombie) processes of session ``sid``: 'pid cmdline'."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            fields = stat[stat.rindex(")") + 2:].split()
            if int(fields[3]) != sid or fields[0] == "Z":
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")[:120]
            found.append(f"{entry} {cmd}")
        except (OSError, ValueError, IndexError):
            continue
    return found


def kill_session(sid: int) -> None:
    try:
        os.killpg(sid, signal.SIGKILL)
    except OSError:
        pass


def one(name: str, rng: random.Random) -> dict:
    args, longest, store = COMMANDS[name]
    d = tempfile.mkdtemp(prefix="sigprobe-")
    argv = [sys.executable, "-m", "pokersquares", *[a.format(d=d) for a in args]]
    sig = rng.choice(list(STOPS))
    longest = float(os.environ.get("PROBE_LONGEST", longest))  # e.g. 0.5: the start-up alone
    delay = math.exp(rng.uniform(math.log(0.05), math.log(longest)))
    err_path, out_path = os.path.join(d, "stderr"), os.path.join(d, "stdout")
    with open(err_path, "w") as err, open(out_path, "w") as out:
        started = time.monotonic()
        p = subprocess.Popen(argv, stdout=out, stderr=err, cwd=d, preexec_fn=as_in_a_terminal,
                             start_new_session=True)
        sid = p.pid
        finished_first = False
        try:
            p.wait(timeout=delay)
            finished_first = True
        except subprocess.TimeoutExpired:
            pass
        members_at_signal = len(session_members(sid))
        sent = time.monotonic()
        if not finished_first:
            p.send_signal(sig)
        try:
            rc = p.wait(timeout=90)
            hung = False
        except subprocess.TimeoutExpired:
            hung = True
            kill_session(sid)
            rc = p.wait()
        took = time.monotonic() - sent
    time.sleep(0.3)  # children get a moment to notice their parent is gone
    left = session_members(sid)
    left_after_3s = left
    if left:
        time.sleep(3)
        left_after_3s = session_members(sid)
        kill_session(sid)
    stderr = open(err_path, errors="replace").read()
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    code, word = STOPS[sig]
    rec = {
        "cmd": name, "signal": sig.name, "delay": round(delay, 3), "finished_first": finished_first,
        "stop_s": round(took, 3), "rc": rc, "hung": hung, "last": lines[-1][:160] if lines else "",
        "stderr_lines": len(lines), "traceback": "Traceback" in stderr or "Exception ignored" in stderr,
        "members_at_signal": members_at_signal, "left": left, "left_after_3s": left_after_3s,
        "files": sorted(os.listdir(d)), "dir": d,
    }
    rec["ok"] = (not hung and not rec["traceback"] and not left and
                 (finished_first and rc == 0 or rc == code and rec["last"].startswith(word)))
    if store and not finished_first and rng.random() < 0.35:
        r = subprocess.run(argv, capture_output=True, text=True, cwd=d, timeout=300,
                           preexec_fn=as_in_a_terminal)
        rec["rerun_rc"] = r.returncode
        rec["rerun_traceback"] = "Traceback" in r.stderr
        rec["rerun_err"] = r.stderr.strip().splitlines()[-1][:160] if r.stderr.strip() else ""
        rec["ok"] = rec["ok"] and r.returncode == 0 and not rec["rerun_traceback"]
    if rec["ok"]:
        subprocess.run(["rm", "-rf", d])
    return rec


def main() -> None:
    out = sys.argv[1]
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    names = sys.argv[3:] or list(COMMANDS)
    rng = random.Random(int(os.environ.get("PROBE_SEED", time.time_ns() % 2**32)))
    order = [n for n in names for _ in range(reps)]
    rng.shuffle(order)
    for name in order:
        rec = one(name, rng)
        with open(out, "a") as f:
            f.write(json.dumps(rec) + "\n")
        print(json.dumps({k: rec[k] for k in ("cmd", "signal", "delay", "stop_s", "rc", "last", "ok")}), flush=True)


if __name__ == "__main__":
    main()
