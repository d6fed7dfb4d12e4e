"""What a preparation costs an exported player (`pokersquares export-java`) when several
instances of its class take turns, system after system, as the contest framework's
``playTournament`` plays the same players on each point system: the wall seconds of
each ``setPointSystem``, as JSON. With a budget of 0 ms the player learns nothing, so
the figure is what the exported class spends before the player's own preparation (a
new Python process, when one must be started, is spent inside that budget).

    python benchmarks/java_export_turns.py [--player champion] [--instances 2] [--systems 4] [--millis 0]

Compiles the tests' stand-ins of the contest framework (tests/players/java/) with javac.
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

DRIVER = r"""
import java.util.*;

public class Turns {
    public static void main(String[] a) throws Exception {
        String cls = a[0];
        int instances = Integer.parseInt(a[1]), systems = Integer.parseInt(a[2]);
        long millis = Long.parseLong(a[3]);
        List<PokerSquaresPlayer> players = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            players.add((PokerSquaresPlayer) Class.forName(cls).getDeclaredConstructor().newInstance());
        }
        StringBuilder out = new StringBuilder();
        for (int s = 0; s < systems; s++) {
            int[] points = new int[10];
            Random r = new Random(s);
            for (int i = 0; i < 10; i++) points[i] = r.nextInt(256) - 128;
            for (PokerSquaresPlayer p : players) {
                long t = System.nanoTime();
                p.setPointSystem(new PokerSquaresPointSystem(points), millis);
                out.append((System.nanoTime() - t) / 1e9).append(' ');
                p.init();
                List<Integer> deck = new ArrayList<>();
                for (int i = 0; i < 52; i++) deck.add(i);
                Collections.shuffle(deck, new Random(s));
                for (int k = 0; k < 25; k++) p.getPlay(Card.getCard(deck.get(k)), 30000);
            }
        }
        System.out.println(out.toString().trim());
        System.exit(0);
    }
}
"""


def _drive(work: Path, args: argparse.Namespace, name: str, ap: argparse.ArgumentParser) -> str:
    """Compile the stand-in framework and the driver in ``work``, export the player as
    ``name`` there and run the driver: its output."""
    from pokersquares.errors import PokerSquaresError
    from pokersquares.java_export import export_java

    classes = work / "classes"
    subprocess.run(["javac", "-d", str(classes), *map(str, (ROOT / "tests/players/java").glob("*.java"))], check=True)
    try:
        export_java(args.player, work / "exported", name, str(classes))
    except PokerSquaresError as e:  # a bad spec: said before any process starts
        ap.error(str(e))
    (work / "Turns.java").write_text(DRIVER)
    subprocess.run(["javac", "-cp", str(classes), "-d", str(classes), str(work / "Turns.java")], check=True)
    cp = ":".join(map(str, [classes, work / "exported"]))
    run = subprocess.run(["java", "-cp", cp, "Turns", name, str(args.instances), str(args.systems), str(args.millis)],
                         capture_output=True, text=True, check=False)
    if run.returncode != 0:
        sys.exit(f"error: the Java driver failed: {run.stderr.strip().splitlines()[-1:]}")
    return run.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--player", default="champion", help="the player spec to export")
    ap.add_argument("--instances", type=int, default=2, help="instances of the exported class, taking turns")
    ap.add_argument("--systems", type=int, default=4, help="point systems, each prepared by every instance")
    ap.add_argument("--millis", type=int, default=0, help="each preparation's budget in milliseconds")
    args = ap.parse_args()
    if args.instances < 1 or args.systems < 1 or args.millis < 0:
        ap.error(f"--instances and --systems must be at least 1 and --millis at least 0, got "
                 f"{args.instances}, {args.systems} and {args.millis}")
    from pokersquares.java_export import default_class_name

    name = default_class_name(args.player)
    with tempfile.TemporaryDirectory(prefix="java-export-turns-") as tmp:
        seconds = [round(float(w), 4) for w in _drive(Path(tmp), args, name, ap).split()]
    first, later = seconds[:args.instances], seconds[args.instances:]
    print(json.dumps({
        "player": args.player, "class": name, "instances": args.instances, "systems": args.systems,
        "millis": args.millis, "set_point_system_s": seconds,
        "first_system_median_s": round(statistics.median(first), 4),
        "later_systems_median_s": round(statistics.median(later), 4) if later else None,
        "later_systems_max_s": max(later) if later else None,
    }, indent=1))


if __name__ == "__main__":
    main()
