"""The exported class's Python processes in a Java tournament: how many live at once, and
that no call waits for ever. A Java organiser (compiled here against the stand-in
framework of tests/players/java/) drives the exported classes as a tournament does."""

import os
import shutil
import subprocess

import pytest

from pokersquares.java_export import export_java

ORGANISER = r"""
import java.util.*;

public class Organiser {
    static PokerSquaresPlayer make(String cls) throws Exception {
        PokerSquaresPlayer p = (PokerSquaresPlayer) Class.forName(cls).getDeclaredConstructor().newInstance();
        look();
        return p;
    }

    static void prepare(PokerSquaresPlayer p, int s) {
        p.setPointSystem(system(s), 300);
        look();
    }

    static long alive() {
        return ProcessHandle.current().children().filter(ProcessHandle::isAlive).count();
    }

    static PokerSquaresPointSystem system(int s) {
        int[] points = new int[10];
        Random r = new Random(s);
        for (int i = 0; i < 10; i++) points[i] = r.nextInt(256) - 128;
        return new PokerSquaresPointSystem(points);
    }

    static final Set<Long> seen = new HashSet<>();  // every Python process's id seen

    static void look() {
        ProcessHandle.current().children().forEach(c -> seen.add(c.pid()));
    }

    /** Moves from..to-1 of a game (init before the first), checked to fill distinct cells. */
    static void moves(PokerSquaresPlayer p, int seed, int from, int to, Set<Integer> cells) {
        if (from == 0) p.init();
        look();
        List<Integer> deck = new ArrayList<>();
        for (int i = 0; i < 52; i++) deck.add(i);
        Collections.shuffle(deck, new Random(seed));
        for (int k = from; k < to; k++) {
            int[] rc = p.getPlay(Card.getCard(deck.get(k)), 30000);
            cells.add(rc[0] * 5 + rc[1]);
        }
        if (cells.size() != to) throw new IllegalStateException("cells " + cells);
    }

    static void game(PokerSquaresPlayer p, int seed, long millis) {
        moves(p, seed, 0, 25, new HashSet<>());
    }

    public static void main(String[] a) throws Exception {
        String mode = a[0], cls = a[1];
        if (mode.equals("fresh")) {  // a fresh instance per point system, one at a time
            int n = Integer.parseInt(a[2]);
            long most = 0;
            for (int s = 0; s < n; s++) {
                PokerSquaresPlayer p = make(cls);
                p.setPointSystem(system(s), 300);
                game(p, s, 30000);
                // the instance ended at this one's making has had its input closed: let it exit
                for (int i = 0; i < 50 && alive() > 1; i++) Thread.sleep(100);
                most = Math.max(most, alive());
            }
            for (int i = 0; i < 100 && alive() > 1; i++) Thread.sleep(100);
            System.out.println("systems " + n + " alive " + alive() + " most " + most + " processes " + seen.size());
        } else if (mode.equals("turns")) {  // n instances, each prepared and played in turn, system after system
            int n = Integer.parseInt(a[2]), systems = Integer.parseInt(a[3]);
            List<PokerSquaresPlayer> players = new ArrayList<>();
            for (int i = 0; i < n; i++) players.add(make(cls));
            for (int s = 0; s < systems; s++) {
                for (PokerSquaresPlayer p : players) {
                    prepare(p, s);
                    game(p, s, 30000);
                }
            }
            // the last instance's process, and one given up kept idle: the others end
            for (int i = 0; i < 50 && alive() > Math.min(n, 2); i++) Thread.sleep(100);
            System.out.println("turns alive " + alive() + " processes " + seen.size());
        } else if (mode.equals("dead idle")) {  // a process given up, then killed from outside while idle
            PokerSquaresPlayer x = make(cls);
            ProcessHandle first = ProcessHandle.current().children().findFirst().get();
            PokerSquaresPlayer y = make(cls);
            prepare(x, 1);
            game(x, 1, 30000);
            prepare(y, 2);  // x has played: its process is given up, kept idle
            first.destroyForcibly();
            first.onExit().get();
            PokerSquaresPlayer z = make(cls);  // not given the dead process: a new one
            prepare(z, 3);
            game(z, 3, 30000);
            System.out.println("dead idle ok processes " + seen.size());
        } else if (mode.equals("interleaved")) {  // every instance prepared before any game; then a game again
            PokerSquaresPlayer x = make(cls), y = make(cls);
            prepare(x, 1);
            prepare(y, 2);
            game(x, 1, 30000);
            game(y, 2, 30000);
            game(x, 3, 30000);
            Set<Integer> cells = new HashSet<>();
            moves(y, 4, 0, 10, cells);
            PokerSquaresPlayer z = make(cls);  // while y is in a game: x has played, and is ended
            prepare(z, 3);
            game(z, 5, 30000);
            moves(y, 4, 10, 25, cells);
            game(x, 6, 30000);  // x again (a new process, prepared again for its system)
            look();
            System.out.println("interleaved ok alive " + alive() + " processes " + seen.size());
        } else if (mode.equals("hang")) {  // the Python player stops answering in its first game
            PokerSquaresPlayer p = make(cls);
            p.setPointSystem(system(0), 300);
            p.init();
            long t = System.nanoTime();
            // As the contest's framework plays: no try/catch; the game ends at an answer that is
            // late or not an empty cell of the grid.
            int[] rc = {0, 0};
            int k = 0;
            for (; k < 25; k++) {
                rc = p.getPlay(Card.getCard(k), 1500);
                if (rc[0] < 0 || rc[0] > 4 || rc[1] < 0 || rc[1] > 4) break;
            }
            System.out.println("answered " + rc[0] + "," + rc[1] + " at play " + k + " after "
                               + (System.nanoTime() - t) / 1000000 + " ms");
            game(p, 5, 30000);  // the next game: a new process, prepared again
            System.out.println("next game ok alive " + alive());
        } else if (mode.equals("illegal")) {  // a game the framework ends at an occupied cell
            PokerSquaresPlayer x = make(cls);
            x.setPointSystem(system(0), 300);
            x.init();
            Set<Integer> cells = new HashSet<>();
            for (int k = 0; k < 25; k++) {
                int[] rc = x.getPlay(Card.getCard(k), 30000);
                if (!cells.add(rc[0] * 5 + rc[1])) break;
            }
            PokerSquaresPlayer y = make(cls);  // x's game is over: x is ended
            for (int i = 0; i < 50 && alive() > 1; i++) Thread.sleep(100);
            System.out.println("illegal alive " + alive());
        }
        System.exit(0);
    }
}
"""

HANGS_ONCE = """
import os, time
from pokersquares.players.baseline import GreedyPlayer

class HangsOnce(GreedyPlayer):
    '''Greedy, except that the first process to make a third move never answers it.'''
    def get_play(self, card, seconds_left):
        self._moves = getattr(self, '_moves', 0) + 1
        flag = os.environ['HANGS_ONCE_FLAG']
        if self._moves == 3 and not os.path.exists(flag):
            open(flag, 'w').close()
            time.sleep(3600)
        return super().get_play(card, seconds_left)

    def start_game(self):
        self._moves = 0
        super().start_game()
"""


COUNTED = """
import os
from pokersquares.players.baseline import GreedyPlayer

class Counted(GreedyPlayer):
    # Greedy, and each preparation's point system written as a line to $COUNTED_FILE.
    def set_point_system(self, point_system, budget_s):
        with open(os.environ['COUNTED_FILE'], 'a') as f:
            f.write(' '.join(map(str, point_system.points)) + chr(10))
        super().set_point_system(point_system, budget_s)
"""


REPEATS = """
from pokersquares.players.baseline import GreedyPlayer

class Repeats(GreedyPlayer):
    '''Greedy, except that its third move repeats its first cell (an occupied cell).'''
    def get_play(self, card, seconds_left):
        self._moves = getattr(self, '_moves', 0) + 1
        cell = super().get_play(card, seconds_left)
        self._first = getattr(self, '_first', None) or cell
        return self._first if self._moves == 3 else cell

    def start_game(self):
        self._moves, self._first = 0, None
        super().start_game()
"""


@pytest.fixture(scope="module")
def organiser(java_classes, tmp_path_factory):
    """The folder of Organiser, compiled against the framework once for the module (it
    finds the exported class it is given by name)."""
    folder = tmp_path_factory.mktemp("organiser")
    (folder / "Organiser.java").write_text(ORGANISER)
    subprocess.run(["javac", "-cp", str(java_classes), "-d", str(folder), str(folder / "Organiser.java")], check=True)
    return folder


@pytest.fixture(scope="module")
def greedy_files(java_classes, tmp_path_factory):
    """The files ``export_java`` wrote and listed for ``greedy`` as PyGreedy, once for the
    module: the tests run them, none changes them."""
    return export_java("greedy", tmp_path_factory.mktemp("greedy") / "exported", "PyGreedy", str(java_classes))


def classpath(java_classes, organiser, *exported):
    """The organiser's classpath: the framework, the exported classes' folders, Organiser."""
    return os.pathsep.join(map(str, [java_classes, *exported, organiser]))


def _exported_module_player(java_classes, organiser, tmp_path, monkeypatch, module, source, cls):
    """A module:Class player written here, exported as Py<cls>; the organiser's classpath."""
    mods = tmp_path / "mods"
    mods.mkdir()
    (mods / f"{module}.py").write_text(source)
    monkeypatch.syspath_prepend(str(mods))
    out = tmp_path / "exported"
    export_java(f"{module}:{cls}", out, f"Py{cls}", str(java_classes))
    return classpath(java_classes, organiser, out)


def drive(cp, *args, env=None, timeout=300, stderr=None):
    proc = subprocess.run(["java", "-cp", cp, "Organiser", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    if stderr is not None:
        stderr.append(proc.stderr)
    return proc.stdout.splitlines()


def test_a_fresh_instance_per_system_does_not_pile_up_python_processes(java_classes, organiser, greedy_files):
    # Each instance's process lived until the JVM ended: a tournament that makes a fresh
    # instance per point system held one Python process per system (12 of ~180 MB for
    # greedy, ~245 MB for champion). An instance that has played and is between games is
    # now ended when another instance of its class is constructed or prepared.
    # The next instance takes the process over (it is prepared for its own system) rather
    # than starting one: the three systems are played on one process.
    cp = classpath(java_classes, organiser, greedy_files[0].parent)
    assert drive(cp, "fresh", "PyGreedy", "3") == ["systems 3 alive 1 most 1 processes 1"]


def test_instances_prepared_before_their_games_are_not_ended(java_classes, organiser, tmp_path, monkeypatch):
    # Every instance prepared first, then their games: none gives up its process while it
    # is prepared and has not played (it would be prepared again at its init), nor in a
    # game; one that played gives it up when another is made (z takes x's), and plays its
    # next game on a new process, prepared again for its system. Processes: x's (then
    # z's), y's, x's second; preparations: x, y, z, x again.
    cp = _exported_module_player(java_classes, organiser, tmp_path, monkeypatch, "counted", COUNTED, "Counted")
    counted = tmp_path / "counted.txt"
    assert drive(cp, "interleaved", "PyCounted", env={**os.environ, "COUNTED_FILE": str(counted)}) == [
        "interleaved ok alive 3 processes 3"]
    systems = counted.read_text().splitlines()
    assert len(systems) == 4 and len(set(systems)) == 3 and systems[0] == systems[3], systems


@pytest.mark.parametrize("instances, alive, processes", [(2, 2, 2), (3, 2, 3)])
def test_instances_taking_turns_hand_their_processes_to_each_other(java_classes, organiser, greedy_files,
                                                                  instances, alive, processes):
    # Two instances of one exported class played in turn, system after system (the
    # framework's playTournament with the same players): each one's preparation ended the
    # other's process, which then started a new one in its next preparation (about 1.5 s
    # of its budget): six processes in three systems. A process given up is now kept
    # and taken by the next instance that needs one; of those given up, one a class is
    # kept (three instances: two processes left, the last one's and one idle).
    cp = classpath(java_classes, organiser, greedy_files[0].parent)
    assert drive(cp, "turns", "PyGreedy", str(instances), "3") == [f"turns alive {alive} processes {processes}"]


def test_a_kept_process_killed_while_idle_is_not_taken(java_classes, organiser, greedy_files):
    # An instance that took a process killed from outside while it was kept would fail
    # its preparation (setPointSystem throws: "exited with code ..."); it starts a new one.
    cp = classpath(java_classes, organiser, greedy_files[0].parent)
    assert drive(cp, "dead idle", "PyGreedy") == ["dead idle ok processes 3"]


def test_a_python_player_that_stops_answering_does_not_hang_the_tournament(java_classes, organiser, tmp_path,
                                                                          monkeypatch):
    # getPlay waited for the Python process's answer for ever: a player that never
    # answered hung the Java tournament. It now waits the game's time left and 1 s more,
    # then answers (-1, -1), which the framework scores as the game's penalty (a throw
    # would end the contest's tournament: its framework catches nothing), says why on
    # stderr, and the next game has a new process.
    cp = _exported_module_player(java_classes, organiser, tmp_path, monkeypatch, "hangsonce", HANGS_ONCE, "HangsOnce")
    env = {**os.environ, "HANGS_ONCE_FLAG": str(tmp_path / "hung")}
    err = []
    lines = drive(cp, "hang", "PyHangsOnce", env=env, timeout=120, stderr=err)
    assert len(lines) == 2 and lines[1] == "next game ok alive 1", lines
    head, ms = lines[0].rsplit(" after ", 1)
    assert head == "answered -1,-1 at play 2" and 2400 <= int(ms.split()[0]) < 10000, lines
    assert ("pokersquares: the Python player did not answer 'play 2 1500' within 2500 ms; its process was stopped; "
            "this play is answered (-1, -1)") in err[0].splitlines(), err[0][-2000:]


def test_an_instance_whose_game_the_framework_ended_early_is_ended_too(java_classes, organiser, tmp_path,
                                                                       monkeypatch):
    # The framework ends a game at an answer on an occupied cell (or past its time): the
    # instance counted 22 plays still to come and was never ended, one process kept per
    # system again where such a game was a system's last.
    cp = _exported_module_player(java_classes, organiser, tmp_path, monkeypatch, "repeats", REPEATS, "Repeats")
    assert drive(cp, "illegal", "PyRepeats") == ["illegal alive 1"]


def test_every_class_file_a_java_tournament_needs_is_listed(java_classes, organiser, greedy_files, tmp_path):
    # The base class's nested class (PokerSquaresPython$Session.class) was not listed: a user
    # who copied the listed files beside the framework's got NoClassDefFoundError at once.
    classes = [f for f in greedy_files if f.suffix == ".class"]
    assert sorted(classes) == sorted(greedy_files[0].parent.glob("*.class")) and any("$" in f.name for f in classes)
    copied = tmp_path / "copied"
    copied.mkdir()
    for f in classes:
        shutil.copy(f, copied / f.name)
    cp = classpath(java_classes, organiser, copied)
    assert drive(cp, "fresh", "PyGreedy", "1") == ["systems 1 alive 1 most 1 processes 1"]


def test_the_turns_benchmark_times_each_preparation_of_instances_taking_turns(java_classes):
    # benchmarks/java_export_turns.py, as README quotes it, on greedy: one figure per
    # preparation (two instances, two systems), in the order they were made.
    import json
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "java_export_turns.py"
    run = subprocess.run([sys.executable, str(script), "--player", "greedy", "--systems", "2"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    out = json.loads(run.stdout)
    assert (out["player"], out["class"], out["instances"], out["systems"], out["millis"]) == (
        "greedy", "PyGreedy", 2, 2, 0)
    seconds = out["set_point_system_s"]
    assert len(seconds) == 4 and all(0 <= s < 60 for s in seconds)
    assert out["later_systems_max_s"] == max(seconds[2:])
