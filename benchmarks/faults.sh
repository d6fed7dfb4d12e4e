#!/bin/bash
# usage: benchmarks/faults.sh SRC OUTDIR (SRC: an absolute path to a src/ folder); runs each fault command with PYTHONPATH=SRC and prints a one-line outcome
SRC=$1; OUT=$2; mkdir -p $OUT; cd $OUT; rm -f *.sqlite* 
export PYTHONPATH=$SRC
R="--prep-time 0 --time-per-game 1 -q"
t() { # name, command...
  local name=$1; shift
  timeout 60 "$@" > out.txt 2> err.txt; rc=$?
  echo "## $name | rc=$rc | $(head -c 200 err.txt | tr '\n' ' ' | cut -c1-160) | stdout: $(head -c 100 out.txt | tr '\n' ' ')"
}
P="python -m pokersquares"
t "time-per-game inf" $P run --player greedy --games 2 --time-per-game inf --prep-time 0 -q --db a.sqlite
t "time-per-game nan" $P run --player greedy --games 2 --time-per-game nan --prep-time 0 -q --db a.sqlite
t "time-per-game -1" $P run --player greedy --games 2 --time-per-game -1 --prep-time 0 -q --db a.sqlite
t "prep-time inf" $P run --player greedy --games 2 --time-per-game 1 --prep-time inf -q --db a.sqlite
t "prep-time 1e300" $P run --player greedy --games 2 --time-per-game 1 --prep-time 1e300 -q --db a.sqlite
t "seed near 2^63" $P run --player greedy --games 3 --seed 9223372036854775806 $R --db a.sqlite
t "deal seed 2^64" $P deal --seed 18446744073709551616
t "games 1e20" $P run --player greedy --games 99999999999999999999 $R --db a.sqlite
t "sweep count 1e8" $P sweep --player greedy --param flush_weight=0..1/100000000 --games 2 $R --db a.sqlite
t "sweep flush_weight=abc" $P sweep --player greedy --param flush_weight=abc --games 2 $R --db s.sqlite
t "run greedy:foo=1" $P run --player greedy:foo=1 --games 2 $R --db b.sqlite
t "og:load=missing.json" $P run --player og:load=missing.json --games 2 $R --db b.sqlite
echo "runs left in b.sqlite: $(python -c "
import sqlite3,os
print(sqlite3.connect('b.sqlite').execute('select count(*) from runs').fetchone()[0] if os.path.exists('b.sqlite') else 'no store')")"
t "tournament random:bogus=1" $P tournament --players greedy,random:bogus=1 --systems american --games 2 $R --db c.sqlite
echo "tournaments/games left in c.sqlite: $(python -c "
import sqlite3,os
c=sqlite3.connect('c.sqlite') if os.path.exists('c.sqlite') else None
print([c.execute(f'select count(*) from {t}').fetchone()[0] for t in ('tournaments','games')] if c else 'no store')")"
t "train --out dir" $P train --player og --system american --prep-time 1 --out .
t "demo bad player" $P demo --players greedy,nosuch --games 1 --db d.sqlite
t "tiger:cp=abc" $P run --player tiger:cp=abc --games 1 $R --db e.sqlite
t "cores=abc" $P run --player beemo:cores=abc --games 1 $R --db e.sqlite
t "bench --scale 1e300" $P bench --scale 1e300 --repeats 1 --only random_games_per_s
$P run --player greedy --games 1 $R --db x.sqlite > /dev/null 2>&1
t "export missing run" $P results --export json --run 99 --db x.sqlite
mkdir -p ro; chmod 555 ro
t "read-only dir store" $P run --player greedy --games 1 $R --db ro/x.sqlite
$P run --player greedy --games 1 $R --db v.sqlite >/dev/null 2>&1
python -c "
import sqlite3; c=sqlite3.connect('v.sqlite'); c.execute(\"UPDATE meta SET value='99' WHERE key='schema_version'\"); c.commit()"
t "schema_version 99" $P run --player greedy --games 2 $R --db v.sqlite
echo "games in v.sqlite (1 before): $(python -c "import sqlite3;print(sqlite3.connect('v.sqlite').execute('select count(*) from games').fetchone()[0])")"
t "tournament --systems ''" $P tournament --players greedy --systems "" --games 1 $R --db f.sqlite
t "demo greedy,greedy" $P demo --players greedy,greedy --games 1 --db g.sqlite
t "plot adir" $P sweep --player greedy --param flush_weight=0,1 --games 1 $R --db s2.sqlite --plot adir
t "system clamp" $P system -- 0,2,5,10,15,20,25,50,75,500
export PYTHONPATH=$SRC:$SRC/../tests/harness
t "player prints, --json" bash -c "$P run --player fault_players:Prints --games 2 $R --db p.sqlite --json | python -c 'import json,sys; d=json.load(sys.stdin); print(\"json ok\", d[\"games\"])'"
t "leaking player" $P run --player fault_players:Leaks --games 1 --prep-time 0 --time-per-game 5 -q --db m.sqlite --memory-limit 300
t "leaking player (no option)" $P run --player fault_players:Leaks --games 1 --prep-time 0 --time-per-game 5 -q --db m2.sqlite
echo "penalty in m2: $(python -c "import sqlite3;print(sqlite3.connect('m2.sqlite').execute('select penalty from games').fetchall())")"
