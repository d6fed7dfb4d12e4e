#!/bin/bash
# usage: benchmarks/serve_signals.sh [PORT] [OUTDIR]
# Starts `pokersquares serve --warm american` in a session of its own nine times and sends
# its process group SIGINT, SIGTERM or SIGHUP (as a terminal does) after 0.3, 2.5 or 6 s:
# while loading, compiling and learning. Prints one JSON line per stop and a summary:
# each should end with the signal's exit code (130, 143, 129) and its one line, with no
# agent FAILED, no traceback and no process left behind.
PORT=${1:-8790}; OUT=${2:-$(mktemp -d)}; mkdir -p "$OUT"; cd "$OUT" || exit 1
ok=0; n=0
for sig in INT TERM HUP; do
  case $sig in INT) want=130; word=interrupted;; TERM) want=143; word=terminated;; HUP) want=129; word="hung up";; esac
  for t in 0.3 2.5 6; do
    rm -f s.out s.err
    # Ctrl-C's and SIGHUP's defaults restored, as a terminal starts a command (a script's background
    # ignores Ctrl-C, nohup SIGHUP).
    (setsid python -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); signal.signal(signal.SIGHUP, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])' \
       pokersquares serve --port "$PORT" --db "$OUT/w.sqlite" --warm american > s.out 2> s.err
     echo "rc=$?" >> s.out) &
    sleep $t
    kill -$sig -- -"$(pgrep -f "serve --port $PORT" | head -1)"
    for _ in $(seq 90); do grep -q rc= s.out 2>/dev/null && break; sleep 1; done
    rc=$(grep -o "rc=[0-9]*" s.out | cut -d= -f2); last=$(tail -1 s.err)
    bad=$(grep -c "FAILED\|Traceback" s.err); left=$(pgrep -fc "port $PORT|spawn_main")
    n=$((n + 1))
    good=false; [ "$rc" = "$want" ] && [ "$bad" = 0 ] && [ "$left" = 0 ] && [[ "$last" == "$word"* ]] && good=true && ok=$((ok + 1))
    printf '{"signal": "%s", "after_s": %s, "exit": %s, "last_line": "%s", "failed_or_traceback_lines": %s, "left_behind": %s, "as_expected": %s}\n' \
      "SIG$sig" "$t" "${rc:-null}" "$last" "$bad" "$left" "$good"
  done
done
printf '{"stops": %s, "as_expected": %s}\n' "$n" "$ok"
