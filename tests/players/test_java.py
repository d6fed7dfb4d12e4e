"""Contest Java players (java:CLASS) through the harness, with our own stand-ins for the
contest framework's types compiled from tests/players/java/ once per session."""

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from pokersquares import AMERICAN, PointSystem, deal
from pokersquares.harness.registry import UnknownPlayerError, make_player
from pokersquares.harness.runner import RunSpec, record_run, run_games
from pokersquares.harness.store import ResultStore
from pokersquares.players import java

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))  # first_empty_player, for forked workers
NEG = PointSystem((-3, 2, 5, 10, 15, 20, 25, 50, 75, 100), "negative high card")


def run(player, n=4, system=NEG, tpg=5.0, workers=2, seed=100):
    return run_games(RunSpec(player, system, n, seed, tpg, 1.0), range(n), workers=workers)


def faulty(seed: int) -> bool:
    """FaultyPlayer misbehaves at move 3 of games whose first card has an odd id."""
    return deal(seed)[0] % 2 == 1


def java_processes(marker: str) -> list[int]:
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0") if proc.name.isdigit() else []
            if argv and argv[0].endswith(b"java") and marker.encode() in argv:
                pids.append(int(proc.name))
        except OSError:
            pass
    return pids


def test_first_empty_java_player_scores_as_the_python_one(java_classes):
    ours = run("java:FirstEmptyPlayer", n=6, system=AMERICAN)
    twin = run("first_empty_player:FirstEmpty", n=6, system=AMERICAN)
    assert [r.penalty for r in ours] == [None] * 6
    assert [(r.score, r.placements) for r in ours] == [(r.score, r.placements) for r in twin]


def test_random_java_player_plays_legal_games_of_the_contest_deals(java_classes):
    for rec in run("java:RandomJavaPlayer", n=4, system=AMERICAN):
        assert rec.penalty is None and [c for c, _, _ in rec.placements] == deal(rec.seed)[:25]
        assert len({(r, c) for _, r, c in rec.placements}) == 25


@pytest.mark.parametrize("player,reason", [
    ("ThrowPlayer", "error: JavaPlayerError: getPlay threw java.lang.IllegalStateException: boom"),
    ("ExitPlayer", "error: JavaPlayerError: the JVM exited with code 3"),
    ("OccupiedPlayer", "illegal play"),
    ("MalformedPlayer", "malformed answer"),
])
def test_each_fault_scores_the_penalty_with_its_reason_and_the_run_goes_on(java_classes, player, reason):
    recs = run(f"java:{player}", n=4, seed=100)
    assert {faulty(r.seed) for r in recs} == {False, True}  # the deals test both cases
    for r in recs:
        if faulty(r.seed):
            assert r.penalty.startswith(reason) and r.score == -30, r.penalty
        else:
            assert r.penalty is None and len(r.placements) == 25


def test_a_hanging_player_times_out_and_its_jvm_does_not_outlive_the_run(java_classes):
    marker = f"-Dpokersquares.test={uuid.uuid4().hex}"
    # grace=10: the harness's watchdog (2 s past the game's time) kills the worker first;
    # the JVM, busy in an endless loop, must still end with it.
    # 1.5 s a game: the good game's 25 calls keep to it beside the hanging JVM's busy core
    # on a loaded machine (at 0.5 s it once timed out in a full parallel suite).
    recs = run(f"java:HangPlayer:java_opts={marker},grace=10", n=2, tpg=1.5)
    assert [r.penalty is not None for r in recs] == [faulty(r.seed) for r in recs] == [True, False], [
        (r.seed, r.penalty, round(r.decision_s, 2), len(r.placements)) for r in recs]
    assert all(r.penalty.startswith("timeout") for r in recs if r.penalty)
    # Our own stop (0.5 s past the time left) comes first by default; the next game gets a new JVM.
    recs = run(f"java:HangPlayer:java_opts={marker}", n=2, tpg=1.5, workers=1)
    assert [r.penalty is not None for r in recs] == [faulty(r.seed) for r in recs] == [True, False]
    assert all(r.penalty.startswith("timeout") for r in recs if r.penalty)
    assert java_processes(marker) == []


def test_the_jvm_halts_when_its_parent_is_killed_in_the_middle_of_a_call(java_classes, tmp_path):
    marker = f"-Dpokersquares.test={uuid.uuid4().hex}"
    script = (f"from pokersquares.players.java import JavaPlayer\n"
              f"p = JavaPlayer('HangPlayer', java_opts={marker!r}, grace=60)\n"
              "from pokersquares import AMERICAN\n"
              "p.set_point_system(AMERICAN, 0.1); p.start_game()\n"
              "print('playing', flush=True)\n"
              "for card in (1, 3, 5): p.get_play(card, 60)\n")
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert parent.stdout.readline().strip() == "playing"
    assert len(java_processes(marker)) == 1
    import time
    time.sleep(0.3)  # inside the endless getPlay
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 10
    while java_processes(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert java_processes(marker) == []


def test_the_jvm_starts_in_warm_up_outside_the_clocks(java_classes):
    player = make_player("java:FirstEmptyPlayer")
    assert player._proc is None
    player.warm_up()
    assert player._proc.poll() is None and player.java_name == "FirstEmpty"
    player.close()
    assert player._proc is None


def test_resume_and_workers(java_classes, tmp_path):
    store = ResultStore(tmp_path / "r.sqlite")
    seen = []
    record_run(RunSpec("java:FirstEmptyPlayer", AMERICAN, 3, 0, 5.0, 1.0), store, workers=1, on_result=seen.append)
    _, recs = record_run(RunSpec("java:FirstEmptyPlayer", AMERICAN, 5, 0, 5.0, 1.0), store, workers=2,
                         on_result=seen.append)
    assert sorted(r.game_index for r in seen) == [0, 1, 2, 3, 4]  # games 0..2 read back, not replayed
    assert [r.score for r in recs] == [r.score for r in run("first_empty_player:FirstEmpty", n=5, system=AMERICAN,
                                                             seed=0)]


def test_bad_java_players_fail_in_one_line_before_any_game(java_classes, tmp_path, monkeypatch):
    with pytest.raises(UnknownPlayerError, match="NotAPlayer does not implement PokerSquaresPlayer"):
        make_player("java:NotAPlayer")
    with pytest.raises(UnknownPlayerError, match="NoSuchPlayer is not on the classpath"):
        make_player("java:NoSuchPlayer")
    with pytest.raises(UnknownPlayerError, match="grace must be"):
        make_player("java:FirstEmptyPlayer:grace=-1")
    with pytest.raises(UnknownPlayerError, match="bad parameters"):
        make_player("java:FirstEmptyPlayer:depth=2")
    with pytest.raises(UnknownPlayerError, match="give the classpath with --classpath"):
        make_player(f"java:FirstEmptyPlayer:classpath={tmp_path}")  # would run a class the check never saw
    with pytest.raises(UnknownPlayerError, match="does not exist"):
        java.set_classpath(str(tmp_path / "missing.jar"))
    monkeypatch.setenv(java.CLASSPATH_ENV, str(tmp_path))
    with pytest.raises(UnknownPlayerError, match="framework's class PokerSquaresPlayer is not on the classpath"):
        make_player("java:FirstEmptyPlayer")
    monkeypatch.setenv(java.CLASSPATH_ENV, str(java_classes))
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    java._CHECKED.clear()
    with pytest.raises(UnknownPlayerError, match="java not found"):
        make_player("java:FirstEmptyPlayer")


def test_cli_runs_a_java_player_and_rejects_a_bad_one_with_exit_2(java_classes, tmp_path, cli, monkeypatch):
    db = str(tmp_path / "r.sqlite")
    env = {k: v for k, v in os.environ.items() if k != java.CLASSPATH_ENV}
    ok = subprocess.run([sys.executable, "-m", "pokersquares", "run", "--player", "java:FirstEmptyPlayer",
                         "--classpath", str(java_classes), "--games", "2", "--db", db, "-q"],
                        capture_output=True, text=True, env=env)
    assert ok.returncode == 0 and "0 penalties" in ok.stdout, ok.stderr
    # Refused before any game: in this process (--classpath sets the variable, put back after).
    monkeypatch.delenv(java.CLASSPATH_ENV)
    code, _, err = cli("run", "--player", "java:NotAPlayer", "--classpath", java_classes, "--games", "2", "--db", db)
    assert code == 2 and err.strip().count("\n") == 0
    assert "does not implement PokerSquaresPlayer" in err


def test_a_rebuilt_java_player_starts_a_new_run_instead_of_resuming(java_classes, tmp_path):
    store = ResultStore(tmp_path / "r.sqlite")
    spec = RunSpec("java:FirstEmptyPlayer", AMERICAN, 2, 0, 5.0, 1.0)
    run_id, _ = record_run(spec, store, workers=1)
    assert record_run(spec, store, workers=1)[0] == run_id  # same build: resumed
    class_file = java_classes / "FirstEmptyPlayer.class"
    stat = class_file.stat()
    os.utime(class_file, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # as if compiled again
    java._CHECKED.clear()  # a new command (process) checks the class again
    assert record_run(spec, store, workers=1)[0] != run_id


def test_junk_on_the_jvms_stdout_costs_its_game_only_not_the_games_after_it(java_classes):
    # JunkPlayer writes a line straight to the process's stdout in its faulty games, then
    # answers. That game scores the penalty; the answer left behind must not be read as
    # the next game's init, shifting every later answer by one (every game a penalty).
    recs = run("java:JunkPlayer", n=6, seed=100, workers=1)
    assert {faulty(r.seed) for r in recs} == {False, True}
    for r in recs:
        if faulty(r.seed):
            assert r.penalty.startswith("error: JavaPlayerError: unexpected answer") and "junk" in r.penalty
        else:
            assert r.penalty is None and len(r.placements) == 25, (r.seed, r.penalty)


def test_a_nested_class_is_a_java_class_name(java_classes):
    # '$' is part of Java identifiers and of every nested class's binary name.
    recs = run("java:NestedPlayers$First", n=2, system=AMERICAN, workers=1)
    assert [r.penalty for r in recs] == [None, None]
    assert [r.score for r in recs] == [r.score for r in run("first_empty_player:FirstEmpty", n=2, system=AMERICAN,
                                                            workers=1)]
    for bad in ("java:1Player", "java:a..b", "java:a-b", "java:.a"):
        with pytest.raises(UnknownPlayerError, match="not a Java class name"):
            make_player(bad)


def test_a_jvm_that_ends_without_a_word_says_so_in_one_line(java_classes):
    with pytest.raises(UnknownPlayerError, match=r"^java:QuitPlayer: the JVM exited with code 0 before "
                                                 r"creating the player$"):
        make_player("java:QuitPlayer")


@pytest.mark.parametrize("params,words", [
    ("java_opts=-Xbogus", "java_opts='-Xbogus': Unrecognized option: -Xbogus"),
    ("java_opts=-Xmx1k", "Too small maximum heap"),
    ("log={tmp}/missing/player.log", "folder .* does not exist"),
    ("log={tmp}", "is a folder"),
    ("log={db}", "is an SQLite file"),
])
def test_bad_jvm_options_or_log_are_refused_in_one_line_before_any_game(java_classes, tmp_path, cli, params, words):
    # Each game's JVM starts with java_opts and writes to log: a bad one once scored every
    # game of the run the penalty ("preparation failed"), recorded in the store.
    db = tmp_path / "r.sqlite"
    ResultStore(db).close()
    params = params.format(tmp=tmp_path, db=db)
    with pytest.raises(UnknownPlayerError, match=words):
        make_player(f"java:FirstEmptyPlayer:{params}")
    code, out, err = cli("run", "--player", f"java:FirstEmptyPlayer:{params}", "--classpath", java_classes,
                         "--games", "2", "--prep-time", "0.5", "--time-per-game", "0.5", "--db", db, "-q")
    assert code == 2 and err.strip().count("\n") == 0 and err.startswith("error: "), err
    with ResultStore(db) as store:
        assert store.runs() == []
    assert db.read_bytes()[:16] == b"SQLite format 3\x00"


def test_good_jvm_options_and_log_still_play(java_classes, tmp_path):
    log = tmp_path / "player.log"
    recs = run(f"java:FirstEmptyPlayer:java_opts=-Xmx64m -Dpokersquares.x=1,log={log}", n=2, system=AMERICAN,
               workers=1)
    assert [r.penalty for r in recs] == [None, None]
    assert "a chatty player" in log.read_text()
    assert make_player("java:FirstEmptyPlayer:log=/dev/null").log == "/dev/null"  # discarded, as by default


def test_a_time_with_no_end_is_refused_in_one_line_not_an_overflow(java_classes):
    # The player is told its times in milliseconds (a Java long) and waited for that long:
    # int(inf * 1000) raised OverflowError, and an endless wait would never end.
    from pokersquares.errors import PokerSquaresError

    player = make_player("java:FirstEmptyPlayer")
    try:
        for budget in (float("inf"), float("nan")):
            with pytest.raises(PokerSquaresError, match="the preparation's budget for a Java player is a finite"):
                player.set_point_system(AMERICAN, budget)
        player.set_point_system(AMERICAN, 1.0)
        player.start_game()
        with pytest.raises(PokerSquaresError, match="seconds_left for a Java player is a finite"):
            player.get_play(0, float("inf"))
        assert player.get_play(0, 5.0) is not None  # the game goes on as before
    finally:
        player.close()


def test_a_class_two_classpath_entries_hold_is_said_once_naming_both(java_classes, tmp_path):
    """Two entrants' classes of one name (Kim's and Lee's `FirstEmptyPlayer`): the JVM played
    the first entry's every time, and nothing said the second was never played."""
    import shutil
    import zipfile

    lee, jar = tmp_path / "lee", tmp_path / "ann.jar"
    lee.mkdir()
    shutil.copy(java_classes / "FirstEmptyPlayer.class", lee)
    with zipfile.ZipFile(jar, "w") as z:
        z.write(java_classes / "FirstEmptyPlayer.class", "FirstEmptyPlayer.class")
    env = {k: v for k, v in os.environ.items() if k != java.CLASSPATH_ENV}

    def said(classpath):
        done = subprocess.run([sys.executable, "-m", "pokersquares", "run", "--player", "java:FirstEmptyPlayer",
                               "--classpath", classpath, "--games", "1", "--db", str(tmp_path / "r.sqlite"), "-q"],
                              capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr
        return [line for line in done.stderr.splitlines() if "classpath entries" in line]

    lines = said(os.pathsep.join(map(str, (java_classes, lee, jar))))
    assert len(lines) == 1 and "is in 3 classpath entries" in lines[0], lines
    assert all(str(p) in lines[0] for p in (java_classes, lee, jar)) and f"the first's, {java_classes}" in lines[0]
    empty = tmp_path / "empty"
    empty.mkdir()
    # Held once: nothing to say, beside a folder without it or with the same folder given twice.
    assert said(os.pathsep.join(map(str, (java_classes, empty, java_classes)))) == []


def test_a_classpath_wildcard_takes_the_jars_of_its_folder(java_classes, tmp_path, monkeypatch):
    """Java's `folder/*` (every jar in the folder) is a classpath entry like any other:
    checked by its folder, kept with its star, and given to the JVM as it is."""
    import zipfile

    jars = tmp_path / "jars"
    jars.mkdir()
    with zipfile.ZipFile(jars / "framework-and-players.jar", "w") as z:
        for f in java_classes.glob("*.class"):
            z.write(f, f.name)
    monkeypatch.setenv(java.CLASSPATH_ENV, "")  # restored after the test
    assert java.set_classpath(f"{jars}{os.sep}*") == str(jars.resolve() / "*") == os.environ[java.CLASSPATH_ENV]
    with pytest.raises(UnknownPlayerError, match="does not exist"):
        java.set_classpath(f"{tmp_path / 'missing'}{os.sep}*")
    recs = run("java:FirstEmptyPlayer", n=1, system=AMERICAN, workers=1)
    assert [r.penalty for r in recs] == [None]
    assert [r.score for r in recs] == [r.score for r in run("first_empty_player:FirstEmpty", n=1, system=AMERICAN,
                                                            workers=1)]


def test_a_jvm_started_again_is_told_the_point_system_before_its_next_game(java_classes):
    """A JVM that died (or was stopped) in a game is replaced at the next: the new one's
    player must get setPointSystem before init, as the contest's did."""
    player = make_player("java:FirstEmptyPlayer")
    sent = []
    call = player._call
    player._call = lambda command, *args, **kwargs: (sent.append((command or "start").split()[0]),
                                                    call(command, *args, **kwargs))[1]
    try:
        player.set_point_system(AMERICAN, 1.0)
        player.start_game()
        assert player.get_play(0, 5.0) == (0, 0)
        player._proc.kill()  # as a JVM that exits in a game
        player._proc.wait()
        sent.clear()
        player.start_game()
        assert sent == ["start", "system", "init"]
        assert player.get_play(0, 5.0) == (0, 0)
    finally:
        player.close()


@pytest.mark.parametrize("grace", ["1e300", "1e7"])
def test_a_grace_beyond_any_clock_is_refused_in_one_line_not_a_penalty_for_every_game(java_classes, grace):
    """java:...:grace=1e300 was taken, then every game's preparation failed on an
    OverflowError (a wait past the platform's time_t), each game scoring the penalty;
    the harness's own times stop at 1e6 s."""
    with pytest.raises(UnknownPlayerError, match=r"^grace must be a number of seconds from 0 to 1e\+06, got "):
        make_player(f"java:FirstEmptyPlayer:grace={grace}")
    assert make_player("java:FirstEmptyPlayer:grace=1e6").grace == 1e6
