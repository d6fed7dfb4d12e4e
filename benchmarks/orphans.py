"""Start a run, kill it (SIGKILL, SIGTERM or SIGINT to its group), count its processes left 5 s later."""
import os, signal, subprocess, sys, time, sqlite3, tempfile

def ppids():
    out = {}
    for e in os.listdir("/proc"):
        if e.isdigit():
            try:
                st = open(f"/proc/{e}/stat").read()
            except OSError:
                continue
            f = st[st.rindex(")") + 2:].split()
            if f[0] != "Z":
                out[int(e)] = int(f[1])
    return out

def desc(pid):
    pp = ppids(); found, fr = set(), {pid}
    while fr:
        fr = {p for p, q in pp.items() if q in fr} - found; found |= fr
    return found

if len(sys.argv) < 3 or sys.argv[1] in ("-h", "--help") or sys.argv[2] not in ("kill9", "term", "int"):
    sys.exit(f"usage: python {sys.argv[0]} SRC_DIR kill9|term|int\n" + __doc__.strip().splitlines()[0])
src, how = sys.argv[1], sys.argv[2]
d = tempfile.mkdtemp()
db = os.path.join(d, "k.sqlite")
env = dict(os.environ, PYTHONPATH=src)
errf = open(os.path.join(d, "err.txt"), "w+")
p = subprocess.Popen([sys.executable, "-m", "pokersquares", "run", "--player", "greedy", "--games", "6000", "--prep-time", "0",
                      "--time-per-game", "1", "-q", "--db", db, "--workers", "2"], env=env, stdout=subprocess.DEVNULL,
                     stderr=errf, text=True, start_new_session=True,
                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
for _ in range(300):
    time.sleep(0.3)
    try:
        if sqlite3.connect(db).execute("select count(*) from games").fetchone()[0] > 20:
            break
    except Exception:
        pass
kids = desc(p.pid)
{"kill9": lambda: os.kill(p.pid, signal.SIGKILL), "term": lambda: os.kill(p.pid, signal.SIGTERM),
 "int": lambda: os.killpg(p.pid, signal.SIGINT)}[how]()
p.wait(timeout=60)
time.sleep(5)
errf.seek(0)
err = errf.read()
left = kids & set(ppids())
for k in left:
    os.kill(k, signal.SIGKILL)
print(f"{how}: rc={p.returncode}, workers before kill={len(kids)}, alive 5 s later={len(left)}, "
      f"stderr lines={len(err.splitlines())}, 'run the same command again' lines={err.count('run the same command again')}, "
      f"tracebacks={err.count('Traceback')}")
