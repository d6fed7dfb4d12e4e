"""This toolkit's players inside the contest's Java framework (`export-java`): the exported
class, compiled against the stand-in framework of tests/players/java/, is driven by the
harness as a `java:` player, so each game goes Python harness -> JVM -> the exported class
-> `stdio-player` -> the Python player, and back."""

import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from pokersquares import AMERICAN, BRITISH
from pokersquares.harness.game_play import play_game, prepare_player
from pokersquares.harness.registry import make_player
from pokersquares.harness.spec import warm_and_seed
from pokersquares.java_export import (BASE_CLASS, MOVE_MARGIN_S, SYSTEM_MARGIN_S, JavaExportError,
                                      default_class_name, export_java, serve)
from pokersquares.players.baseline import GreedyPlayer

HERE = Path(__file__).parent
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}


def exported(java_classes, tmp_path, spec, name=None):
    out = tmp_path / "exported"
    export_java(spec, out, name, str(java_classes))
    return out


@pytest.fixture(scope="module")
def greedy_export(java_classes, tmp_path_factory):
    """``greedy`` exported as PyGreedy and compiled, once for the tests that only read or
    play it; a test that changes the folder takes a copy of its own (``greedy_copy``)."""
    return exported(java_classes, tmp_path_factory.mktemp("greedy"), "greedy")


@pytest.fixture
def greedy_copy(greedy_export, tmp_path):
    """A copy of ``greedy_export`` at ``tmp_path / "exported"``, where ``exported`` writes."""
    return Path(shutil.copytree(greedy_export, tmp_path / "exported", symlinks=True))


def run(spec, classpath, monkeypatch, system=AMERICAN, n=3, tpg=5.0):
    """Games 10.. of ``spec`` under ``system``, played as a run's worker plays them (the
    player built, warmed up and prepared for 2 s, then each game by the harness's
    ``play_game``), in this process: a run would start the class's JVM, and its Python,
    again in a preparation process only to find that it cannot be handed to the worker."""
    from pokersquares.players import java

    monkeypatch.setenv(java.CLASSPATH_ENV, classpath)
    monkeypatch.setenv("PYTHONPATH", ENV["PYTHONPATH"])
    player = warm_and_seed(make_player(spec), 0)
    try:
        prepare_player(player, system, 2.0)
        return [play_game(player, system, 10 + i, tpg, i) for i in range(n)]
    finally:
        if hasattr(player, "close"):
            player.close()


def test_an_exported_greedy_player_plays_each_game_as_greedy_does(java_classes, greedy_export, monkeypatch):
    cp = f"{java_classes}{os.pathsep}{greedy_export}"
    for system in (AMERICAN, BRITISH):
        ours = run("java:PyGreedy", cp, monkeypatch, system)
        twin = run("greedy", cp, monkeypatch, system)
        assert [r.penalty for r in ours] == [None] * 3
        assert [(r.score, r.placements) for r in ours] == [(r.score, r.placements) for r in twin]


def test_the_players_prints_do_not_reach_the_protocol(java_classes, tmp_path, monkeypatch):
    out = exported(java_classes, tmp_path, "bridge_players:Chatty", "Chatty")
    recs = run("java:Chatty", f"{java_classes}{os.pathsep}{out}", monkeypatch, n=2)
    assert [r.penalty for r in recs] == [None, None] and all(len(r.placements) == 25 for r in recs)


def test_the_players_error_is_thrown_in_java_and_scores_the_penalty(java_classes, tmp_path, monkeypatch):
    out = exported(java_classes, tmp_path, "bridge_players:RaisesAtMove3", "Raiser")
    recs = run("java:Raiser", f"{java_classes}{os.pathsep}{out}", monkeypatch, n=2)
    for r in recs:
        assert len(r.placements) == 2 and r.score == AMERICAN.penalty
        assert r.penalty == ("error: JavaPlayerError: getPlay threw java.lang.IllegalStateException: "
                             "pokersquares: RuntimeError: no idea at all"), r.penalty


def test_a_bad_spec_a_name_or_a_classpath_is_refused_before_anything_is_written(java_classes, tmp_path):
    out = tmp_path / "out"
    cases = [
        (dict(spec="nosuchplayer"), "unknown player"),
        (dict(spec="greedy:depth=2"), "takes no parameter 'depth'"),
        (dict(name="1Player"), "is not a Java class name"),
        (dict(name="my.pkg.Player"), "is not a Java class name"),
        (dict(name="class"), "is a Java keyword"),
        (dict(name="Card"), "is taken"),
        (dict(name=BASE_CLASS), "is taken"),
        (dict(name=f"{BASE_CLASS}$Greedy"), r"is taken \(PokerSquaresPython\$\.\.\. name the base class's nested"),
        (dict(name="Process"), r"is taken \(java.lang.Process"),  # the base class would not compile beside it
        (dict(name="String"), r"is taken \(java.lang.String"),
        (dict(classpath=str(tmp_path / "missing.jar")), "missing.jar does not exist"),
        (dict(classpath=""), "give --classpath"),
        (dict(classpath=str(tmp_path)), r"javac failed \(is the contest framework on --classpath\?\)"),  # no framework
    ]
    for case, message in cases:
        args = dict(spec="greedy", name=None, classpath=str(java_classes)) | case
        with pytest.raises(JavaExportError if "unknown" not in message and "takes" not in message else Exception,
                           match=message):
            export_java(args["spec"], out, args["name"], args["classpath"])
        assert not out.exists(), case
    (tmp_path / "afile").write_text("x")
    with pytest.raises(JavaExportError, match="is a file"):
        export_java("greedy", tmp_path / "afile", classpath=str(java_classes))
    with pytest.raises(JavaExportError, match="does not exist"):
        export_java("greedy", tmp_path / "no" / "out", classpath=str(java_classes))


def test_the_command_line_writes_the_sources_without_compiling(cli, tmp_path):
    code, stdout, _ = cli("export-java", "--player", "greedy", "--out", tmp_path / "src", "--no-compile",
                          "--python", "/opt/py/bin/python3")
    assert code == 0 and "new PyGreedy()" in stdout
    assert sorted(p.name for p in (tmp_path / "src").iterdir()) == [f"{BASE_CLASS}.java", "PyGreedy.java"]
    text = (tmp_path / "src" / "PyGreedy.java").read_text()
    assert ('super("/opt/py/bin/python3", "-m", "pokersquares", "stdio-player", "--player", "greedy");'
            in text)
    code, _, stderr = cli("export-java", "--player", "greedy", "--out", tmp_path / "x", "--class-name", "a-b")
    assert code == 2 and stderr.startswith("error: --class-name 'a-b' is not a Java class name")
    assert default_class_name("td:epsilon=0.1") == "PyTdEpsilon01" and default_class_name("champion") == "PyChampion"


class Recording(GreedyPlayer):
    """Greedy, remembering the budgets it was given."""

    def __init__(self):
        super().__init__()
        self.budgets = []

    def set_point_system(self, point_system, budget_s):
        self.budgets.append(("system", point_system.points, budget_s))
        super().set_point_system(point_system, budget_s)

    def get_play(self, card, seconds_left):
        self.budgets.append(("play", card, seconds_left))
        return super().get_play(card, seconds_left)


def serve_lines(lines, monkeypatch, player=None):
    """serve() over in-memory lines: (exit code, replies, halted, the player)."""
    import pokersquares.harness.spec as spec

    made = player or Recording()
    monkeypatch.setattr(spec, "make_player", lambda s: made)
    replies, halted = [], []
    code = serve("greedy", lines=io.StringIO("".join(line + "\n" for line in lines)),
                 write=replies.append, halt=lambda: halted.append(True))
    return code, replies, halted, made


def test_the_protocol_answers_each_command_and_tells_the_player_its_time_less_the_margins(monkeypatch):
    code, replies, halted, player = serve_lines(
        ["system 0 2 5 10 15 20 25 50 75 100 3000", "init", "play 0 30000", "play 13 1000", "play 26 10",
         "play 52 1000", "fly away", "system 1 2 3", "quit"], monkeypatch)
    assert code == 0 and not halted
    assert replies[0] == "ready greedy" and replies[1:3] == ["ok", "ok"]
    cells = [tuple(map(int, r.split()[1:])) for r in replies[3:6]]
    assert all(r.startswith("play ") for r in replies[3:6]) and len(set(cells)) == 3
    assert all(0 <= r < 5 and 0 <= c < 5 for r, c in cells)
    assert replies[6] == "raised ValueError: card id 52 is not 0..51"
    assert replies[7] == "raised unknown command: fly away" and replies[8] == "raised unknown command: system 1 2 3"
    assert player.budgets[0] == ("system", AMERICAN.points, pytest.approx(3.0 - SYSTEM_MARGIN_S))
    assert [b[2] for b in player.budgets[1:]] == pytest.approx([30 - MOVE_MARGIN_S, 1 - MOVE_MARGIN_S, 0.0])


def test_the_end_of_its_input_halts_it_even_while_the_player_is_busy():
    # The JVM ended (killed in the middle of a 60 s preparation): its stdin closes, and the
    # stdio player must not learn on alone for the rest of the minute.
    proc = subprocess.Popen([sys.executable, "-m", "pokersquares", "stdio-player", "--player",
                             "bridge_players:LearnsItsWholeBudget"], env=ENV, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "ready greedy\n"
    proc.stdin.write("system 0 2 5 10 15 20 25 50 75 100 60000\n")
    proc.stdin.flush()
    while proc.stderr.readline() not in ("learning\n", ""):  # in the preparation now
        pass
    t = time.perf_counter()
    proc.stdin.close()
    time.sleep(0.3)  # the two pipes close one after the other
    proc.stdout.close()
    assert proc.wait(timeout=20) == 0 and time.perf_counter() - t < 15
    proc.stderr.close()


def test_commands_piped_in_are_all_answered_before_it_ends():
    # Input that ends while its reader still reads the answers (a pipe from a shell, by
    # hand): every command is answered, then it exits.
    lines = "system 0 2 5 10 15 20 25 50 75 100 500\ninit\n" + "".join(f"play {c} 1000\n" for c in range(25))
    proc = subprocess.run([sys.executable, "-m", "pokersquares", "stdio-player", "--player", "greedy"],
                          input=lines, capture_output=True, text=True, env=ENV, timeout=120)
    replies = proc.stdout.splitlines()
    assert proc.returncode == 0 and replies[:3] == ["ready greedy", "ok", "ok"], proc.stdout
    assert len(replies) == 28 and len({r for r in replies[3:]}) == 25 and all(r.startswith("play ") for r in replies[3:])


def test_a_bad_player_is_one_error_line_and_exit_code_2():
    proc = subprocess.run([sys.executable, "-m", "pokersquares", "stdio-player", "--player", "nosuch"],
                          input="", capture_output=True, text=True, env=ENV, timeout=120)
    assert proc.returncode == 2 and proc.stdout.startswith("error unknown player 'nosuch'"), proc.stdout
    assert len(proc.stdout.splitlines()) == 1


@pytest.fixture(scope="module")
def probe(java_classes, tmp_path_factory):
    """The folder of ``Probe``, compiled against the framework: ``java Probe CLASS``
    constructs CLASS (found on the classpath, by name) and prints its name."""
    folder = tmp_path_factory.mktemp("probe")
    (folder / "Probe.java").write_text(
        "public class Probe { public static void main(String[] a) throws Exception {\n"
        "  PokerSquaresPlayer p = (PokerSquaresPlayer) Class.forName(a[0]).getDeclaredConstructor().newInstance();\n"
        "  System.out.println(p.getName()); System.exit(0); } }\n")
    subprocess.run(["javac", "-cp", str(java_classes), "-d", str(folder), str(folder / "Probe.java")], check=True)
    return folder


def test_a_spec_with_quotes_backslashes_a_newline_and_unicode_reaches_python_as_given(java_classes, probe, tmp_path,
                                                                                     monkeypatch):
    # javac reads a source in the platform's encoding (ASCII under the C locale) and reads
    # a backslash-u anywhere, even in a comment, as a character: the spec (a path here) and
    # the Python must come out of the Java string exactly as they went in.
    import json
    import shutil

    import pokersquares

    folder = tmp_path / 'models "v2" \\users è\nnew'
    folder.mkdir()
    shutil.copy(Path(pokersquares.__file__).parent / "priors" / "american.npz", folder / "td.npz")
    spec = f"td:load={folder / 'td.npz'}"
    args_file = tmp_path / "args.json"
    fake = tmp_path / "a python"  # says ready and writes the arguments it was given
    fake.write_text(f"#!{sys.executable}\nimport json, sys\n"
                    f"open({str(args_file)!r}, 'w', encoding='utf-8').write(json.dumps(sys.argv[1:]))\n"
                    "print('ready fake', flush=True)\n")
    fake.chmod(0o755)
    monkeypatch.setenv("LC_ALL", "C")
    out = tmp_path / "out"
    export_java(spec, out, "PyOdd", str(java_classes), python=str(fake))
    assert (out / "PyOdd.java").read_text(encoding="utf-8").isascii()
    proc = subprocess.run(["java", "-cp", os.pathsep.join(map(str, [java_classes, out, probe])), "Probe", "PyOdd"],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "LC_ALL": "C.UTF-8"})
    assert proc.returncode == 0 and proc.stdout == "fake\n", proc.stderr
    assert json.loads(args_file.read_text(encoding="utf-8")) == ["-m", "pokersquares", "stdio-player", "--player",
                                                                 spec]


def test_a_folder_it_cannot_write_to_is_one_line(java_classes, tmp_path, cli, monkeypatch):
    out = tmp_path / "out"
    (out / f"{BASE_CLASS}.java").mkdir(parents=True)  # as a folder that is not writable (root writes anywhere)
    with pytest.raises(JavaExportError, match=f"--out {out}: cannot write .*{BASE_CLASS}.java"):
        export_java("greedy", out, classpath=str(java_classes))
    code, _, stderr = cli("export-java", "--player", "greedy", "--out", out, "--no-compile")
    assert code == 2 and stderr.startswith(f"error: --out {out}: cannot write") and len(stderr.splitlines()) == 1
    # A file that cannot be replaced after others were: the message says which are new.
    (out / f"{BASE_CLASS}.java").rmdir()
    (out / "PyGreedy.class").mkdir()
    with pytest.raises(JavaExportError, match=rf"cannot write {out / 'PyGreedy.class'} .*\({BASE_CLASS}.java, "
                                              rf"PyGreedy.java, .*{BASE_CLASS}.class new, the rest as they were\)$"):
        export_java("greedy", out, classpath=str(java_classes))
    assert not [p for p in out.iterdir() if p.name.startswith(".")]
    # --out under a file: said so, not that its folder does not exist.
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    code, _, stderr = cli("export-java", "--player", "greedy", "--out", blocked / "out", "--no-compile")
    assert code == 2 and stderr == f"error: --out {blocked / 'out'}: {blocked} is a file, not a folder\n", stderr
    # A full disk as the sources are staged: the same one line, not the OSError.
    import errno
    import tempfile

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(tempfile, "mkdtemp", full)
    with pytest.raises(JavaExportError, match=f"--out {out}: cannot write {out} \\(No space left on device\\)"):
        export_java("greedy", out, classpath=str(java_classes))


def test_point_values_beyond_the_contests_range_are_said_to_be_clamped(monkeypatch, capsys):
    # The framework scores the values it was given; the player plays them clamped, as the
    # command line's systems are, and says so.
    code, replies, _, player = serve_lines(["system 0 2 5 10 15 20 25 50 75 500 1000",
                                            "system -300 2 5 10 15 20 25 50 75 100 1000", "quit"], monkeypatch)
    assert code == 0 and replies == ["ready greedy", "ok", "ok"]
    assert [b[1][9] for b in player.budgets] == [127, 100] and player.budgets[1][1][0] == -128
    notes = [line for line in capsys.readouterr().err.splitlines() if line.startswith("note:")]
    assert notes == ["note: point values are clamped to [-128, 127] as the contest's are: 500 -> 127",
                     "note: point values are clamped to [-128, 127] as the contest's are: -300 -> -128"]


def test_a_module_player_is_found_from_another_folder_without_its_pythonpath(java_classes, probe, greedy_export,
                                                                           tmp_path, monkeypatch, cli):
    # The class ran `python -m pokersquares stdio-player --player mymod:Mine` with the
    # tournament's PYTHONPATH and folder: exported with PYTHONPATH=mods, it failed in any
    # other folder without it ("cannot import player module 'mymod'"), or played another
    # folder's mymod. It now puts the module's folder (quotes, backslashes, a space and
    # non-ASCII in its name here) ahead of the PYTHONPATH the tournament has.
    mods = tmp_path / 'my mods "v2" \\back è'
    other = tmp_path / "other"
    for folder in (mods, other, tmp_path / "elsewhere"):
        folder.mkdir()
    (mods / "mymod.py").write_text(
        "from pokersquares.players.baseline import GreedyPlayer\n"
        "try:\n    import extra\n    TAG = extra.TAG\nexcept ImportError:\n    TAG = 'alone'\n"
        "class Mine(GreedyPlayer):\n    name = 'mine ' + TAG\n", encoding="utf-8")
    (other / "mymod.py").write_text("from pokersquares.players.baseline import GreedyPlayer\n"
                                    "class Mine(GreedyPlayer):\n    name = 'decoy'\n")
    (other / "extra.py").write_text("TAG = 'with other'\n")
    monkeypatch.syspath_prepend(str(mods))
    out = tmp_path / "out"
    export_java("mymod:Mine", out, "PyMine", str(java_classes))
    assert (out / "PyMine.java").read_text(encoding="utf-8").isascii()
    cp = os.pathsep.join([str(java_classes), str(out)])
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"LC_ALL": "C.UTF-8"}
    for pythonpath, name in ((None, "mine alone"), (str(other), "mine with other")):
        proc = subprocess.run(["java", "-cp", os.pathsep.join([cp, str(probe)]), "Probe", "PyMine"],
                              capture_output=True, text=True, timeout=120, cwd=tmp_path / "elsewhere",
                              env=env if pythonpath is None else env | {"PYTHONPATH": pythonpath})
        assert proc.returncode == 0 and proc.stdout == f"{name}\n", proc.stderr
    recs = run("java:PyMine", cp, monkeypatch, n=2)  # games through the harness, its PYTHONPATH without mods
    assert [r.penalty for r in recs] == [None, None] and all(len(r.placements) == 25 for r in recs)
    # A registered player gets no folder; a module that cannot be imported is one line, nothing written.
    assert "new String[]" not in (greedy_export / "PyGreedy.java").read_text()
    code, _, stderr = cli("export-java", "--player", "nosuchmod:Mine", "--out", tmp_path / "none", "--no-compile")
    assert code == 2 and stderr == "error: cannot import player module 'nosuchmod': ModuleNotFoundError: No module " \
                                   "named 'nosuchmod'\n" and not (tmp_path / "none").exists()
    colon = tmp_path / "a:b"
    colon.mkdir()
    (colon / "colonmod.py").write_text("from pokersquares.players.baseline import GreedyPlayer as Mine\n")
    monkeypatch.syspath_prepend(str(colon))
    with pytest.raises(JavaExportError, match="PYTHONPATH cannot hold: move or rename that folder"):
        export_java("colonmod:Mine", tmp_path / "colon-out", "PyColon", str(java_classes))
    assert not (tmp_path / "colon-out").exists()


def contents(folder: Path) -> dict:
    """Every entry of ``folder`` (hidden ones too): a file's bytes, a folder's entries."""
    return {p.name: contents(p) if p.is_dir() else p.read_bytes() for p in folder.iterdir()}


def fake_jdk(folder: Path, then: str) -> str:
    """A ``JAVA_HOME`` in ``folder`` whose javac writes a partial ``PyGreedy.class`` where it
    was told to, leaves the file ``started`` in ``folder``, then runs the shell code ``then``."""
    javac = folder / "jdk" / "bin" / "javac"
    javac.parent.mkdir(parents=True)
    javac.write_text('#!/bin/sh\nwhile [ "$1" != -d ]; do shift; done\nprintf partial > "$2/PyGreedy.class"\n'
                     f'touch "{folder / "started"}"\n{then}\n')
    javac.chmod(0o755)
    return str(folder / "jdk")


def test_an_export_interrupted_while_it_compiles_leaves_the_previous_one_as_it_was(java_classes, greedy_copy,
                                                                                   tmp_path):
    # The sources were written into --out and compiled there: SIGTERM during javac left the
    # new PyGreedy.java beside the old PyGreedy.class (and javac's partial files), and a Java
    # tournament run from the folder played the old player while the source said the new one.
    out = greedy_copy
    before = contents(out)
    env = {**ENV, "JAVA_HOME": fake_jdk(tmp_path, "exec sleep 60")}
    proc = subprocess.Popen([sys.executable, "-m", "pokersquares", "export-java", "-p", "greedy:flush_weight=2",
                             "--class-name", "PyGreedy", "-o", str(out), "--classpath", str(java_classes)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not (tmp_path / "started").exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.terminate()
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 143 and stderr.endswith("terminated\n") and stdout == "", stderr
    assert contents(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exported", "jdk", "started"]


def test_a_failed_compile_leaves_the_folder_as_it_was(java_classes, greedy_copy, tmp_path, monkeypatch):
    out = greedy_copy
    before = contents(out)
    # javac's error names the source where it was to go (javac was given it in a temporary folder).
    cases = [('echo "$2/PyGreedy.java:3: error: boom" >&2; exit 1', f"javac failed: {out / 'PyGreedy.java'}:3: error"),
             ("exit 3", "javac failed"),
             ("", "cannot run .*javac")]  # a javac that cannot start: its interpreter is gone
    for i, (then, message) in enumerate(cases):
        home = fake_jdk(tmp_path / str(i), then)
        if not then:
            (Path(home) / "bin" / "javac").write_text("#!/nonexistent/sh\n")
        monkeypatch.setenv("JAVA_HOME", home)
        with pytest.raises(JavaExportError, match=message):
            export_java("greedy:flush_weight=2", out, "PyGreedy", str(java_classes))
        assert contents(out) == before, then


def test_a_stop_while_the_files_move_waits_until_all_have_moved(java_classes, greedy_copy, tmp_path, monkeypatch):
    # The moves into --out are held from Ctrl-C, SIGTERM and SIGHUP: one that comes as the
    # first file is moved ends the export after the last, not with some of them new.
    import signal

    out = greedy_copy
    (out / "PyGreedy.java").rename(tmp_path / "PyGreedy.java")
    (out / "PyGreedy.java").symlink_to(tmp_path / "PyGreedy.java")
    replace = os.replace

    def replace_then_interrupt(src, dst):
        replace(src, dst)
        os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(os, "replace", replace_then_interrupt)
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            export_java("greedy:flush_weight=2", out, "PyGreedy", str(java_classes))
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back
        assert all(b"flush_weight=2" in (out / name).read_bytes() for name in ("PyGreedy.java", "PyGreedy.class"))
        assert (out / "PyGreedy.java").is_symlink()  # the file it names replaced, as writing through it did
        assert not [name for name in contents(out) if name.startswith(".")]
        with pytest.raises(KeyboardInterrupt):  # without compiling, the old class file goes with the held moves
            export_java("greedy", out, "PyGreedy", compile=False)
        assert "PyGreedy.class" not in contents(out) and f"{BASE_CLASS}.class" in contents(out)
    finally:
        signal.signal(signal.SIGINT, handler)


def test_an_export_without_compiling_removes_the_class_files_of_the_sources_it_replaces(java_classes, greedy_copy,
                                                                                          tmp_path, cli):
    """The old PyGreedy.class stayed beside the new PyGreedy.java: a Java tournament run from
    the folder played the old player while the source said the new one. The class files of
    other classes stay, and a link is removed, not the file it names."""
    out = greedy_copy
    kept = {name: b"not ours" for name in ("Other.class", "PyGreedy$Inner.class", f"{BASE_CLASS}Greedy.class")}
    for name, data in kept.items():
        (out / name).write_bytes(data)
    (out / "PyGreedy.class").rename(tmp_path / "PyGreedy.class")
    (out / "PyGreedy.class").symlink_to(tmp_path / "PyGreedy.class")
    base = sorted(name for name in contents(out) if name.startswith(BASE_CLASS) and name not in kept)
    code, stdout, stderr = cli("export-java", "--player", "greedy:flush_weight=2", "--class-name", "PyGreedy",
                               "--out", out, "--no-compile")
    assert code == 0 and stderr == "", stderr
    assert [line for line in stdout.splitlines() if line.startswith("removed ")] == [
        f"removed {out / 'PyGreedy.class'} (compiled from the source replaced)"]
    assert f"in a Java tournament, once compiled: new PyGreedy() (classpath: the framework's classes and {out})" \
        in stdout
    after = contents(out)
    assert sorted(after) == sorted([*base, "PyGreedy.java", *kept])  # the base class's source is as it was
    assert b"flush_weight=2" in after["PyGreedy.java"] and all(after[name] == data for name, data in kept.items())
    assert (tmp_path / "PyGreedy.class").exists()
    # Compiled, an older base class's nested class that this one does not have goes.
    (out / f"{BASE_CLASS}$Old.class").write_bytes(b"old")
    code, stdout, stderr = cli("export-java", "--player", "greedy", "--class-name", "PyGreedy", "--out", out,
                               "--classpath", java_classes)
    assert code == 0, stderr
    assert f"removed {out / BASE_CLASS}$Old.class (no part of the {BASE_CLASS} compiled now)" in stdout.splitlines()
    assert "in a Java tournament: new PyGreedy()" in stdout
    assert not (out / f"{BASE_CLASS}$Old.class").exists() and (out / "PyGreedy.class").exists()


def test_a_dangling_link_in_place_of_an_old_class_file_is_removed(greedy_copy, tmp_path, cli):
    out = greedy_copy
    (out / "PyGreedy.class").unlink()
    (out / "PyGreedy.class").symlink_to(tmp_path / "gone.class")
    code, stdout, stderr = cli("export-java", "--player", "greedy", "--out", out, "--no-compile")
    assert code == 0, stderr
    assert f"removed {out / 'PyGreedy.class'} (compiled from the source replaced)" in stdout.splitlines()
    assert not (out / "PyGreedy.class").is_symlink()


def test_the_base_class_other_exports_are_compiled_against_stays_and_a_change_to_it_is_told(java_classes, probe,
                                                                                           tmp_path, cli):
    """Exported beside PyRandom, PyGreedy without compiling removed PokerSquaresPython.class
    (its source unchanged, "compiled from the source replaced") and its nested classes: `new
    PyRandom()` then failed with NoClassDefFoundError. The base class's files stay without
    compiling; when its source is new or changed, the classes compiled against the one
    before are named, to compile again."""
    out = tmp_path / "o"
    for spec in ("greedy", "random"):
        code, _, stderr = cli("export-java", "-p", spec, "--out", out, "--classpath", java_classes)
        assert code == 0, stderr
    base = sorted(name for name in contents(out) if name.startswith(BASE_CLASS) and name.endswith(".class"))
    cp = os.pathsep.join(map(str, [java_classes, out, probe]))

    def random_plays():
        proc = subprocess.run(["java", "-cp", cp, "Probe", "PyRandom"],
                              capture_output=True, text=True, timeout=120, env=ENV)
        return proc.returncode == 0 and proc.stdout == "random\n"

    def export(*options):
        code, stdout, stderr = cli("export-java", "-p", "greedy", "--out", out, *options)
        assert code == 0, stderr
        return [line for line in stdout.splitlines() if line.startswith("removed ")], stderr

    assert export("--no-compile") == ([f"removed {out / 'PyGreedy.class'} (compiled from the source replaced)"], "")
    assert sorted(name for name in contents(out) if name.endswith(".class")) == sorted([*base, "PyRandom.class"])
    assert random_plays()
    told = (f"note: {BASE_CLASS}.java in {out} changed: PyRandom.class there was compiled against the {BASE_CLASS} "
            "before it; compile PyRandom.java again with it")
    (out / f"{BASE_CLASS}.java").write_text((out / f"{BASE_CLASS}.java").read_text() + "// older\n")
    assert export("--no-compile") == ([], f"{told} (its old class files stay until then, for it to run as before)\n")
    assert sorted(name for name in contents(out) if name.endswith(".class")) == sorted([*base, "PyRandom.class"])
    assert random_plays()
    (out / f"{BASE_CLASS}.java").write_text("// older\n")
    assert export("--classpath", java_classes) == ([], f"{told}\n")
    (out / f"{BASE_CLASS}.java").unlink()
    assert export("--classpath", java_classes)[1] == f"{told.replace(' changed:', ' is new:')}\n"
    assert export("--classpath", java_classes) == ([], "")  # the same source: nothing to tell


def test_an_old_class_file_that_cannot_be_removed_is_one_line(tmp_path, cli, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    (out / "PyGreedy.class").write_bytes(b"old")

    def refuse(path, missing_ok=False):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(Path, "unlink", refuse)
    code, _, stderr = cli("export-java", "--player", "greedy", "--out", out, "--no-compile")
    assert code == 2 and stderr == (f"error: --out {out}: cannot remove {out / 'PyGreedy.class'} (Operation not "
                                    "permitted), compiled from the source replaced: remove it yourself, or a Java "
                                    "tournament plays it (the new files are written)\n")
    assert sorted(contents(out)) == [f"{BASE_CLASS}.java", "PyGreedy.class", "PyGreedy.java"]


def test_old_class_files_removed_before_one_that_cannot_be_removed_are_told(java_classes, greedy_copy, tmp_path,
                                                                             cli, monkeypatch):
    """The files removed before one that could not be were not told (they were told after
    all had gone): the others are removed and told, and the error names the one left."""
    out = greedy_copy
    old = [out / f"{BASE_CLASS}$Old{i}.class" for i in range(3)]
    for path in old:
        path.write_bytes(b"old")
    unlink = Path.unlink

    def refuse_one(path, missing_ok=False):
        if path == old[1]:
            raise PermissionError(1, "Operation not permitted")
        unlink(path, missing_ok)

    monkeypatch.setattr(Path, "unlink", refuse_one)
    code, stdout, stderr = cli("export-java", "--player", "greedy", "--out", out, "--classpath", java_classes)
    assert code == 2 and stderr == (f"error: --out {out}: cannot remove {old[1]} (Operation not permitted), no part "
                                    f"of the {BASE_CLASS} compiled now: remove it yourself (the new files are "
                                    "written)\n")
    assert stdout.splitlines() == [f"removed {path} (no part of the {BASE_CLASS} compiled now)"
                                   for path in (old[0], old[2])]
    assert [path.exists() for path in old] == [False, True, False]


def test_a_python_that_does_not_run_here_is_warned_of_and_thrown_in_java_as_the_others(java_classes, tmp_path,
                                                                                      monkeypatch, cli):
    """`--python /nonexistent/python` said "wrote ..." and exit 0; in Java the class then
    threw an UncheckedIOException, where the README says every failure on the Python side
    is an IllegalStateException."""
    code, _, stderr = cli("export-java", "--player", "greedy", "--out", tmp_path / "bad", "--classpath",
                          java_classes, "--python", "/nonexistent/python")
    assert code == 0
    assert ("warning: --python /nonexistent/python: it does not start here (No such file or directory)"
            in stderr), stderr
    code, _, stderr = cli("export-java", "--player", "greedy", "--out", tmp_path / "good", "--no-compile",
                          "--python", sys.executable)
    assert code == 0 and "warning" not in stderr, stderr
    other = tmp_path / "other-python"  # starts, but has no pokersquares
    other.write_text("#!/bin/sh\necho 'ModuleNotFoundError: No module named pokersquares' >&2\nexit 1\n")
    other.chmod(0o755)
    code, _, stderr = cli("export-java", "--player", "greedy", "--out", tmp_path / "other", "--no-compile",
                          "--python", other)
    assert code == 0 and (f"warning: --python {other}: it cannot import pokersquares here (ModuleNotFoundError: "
                          "No module named pokersquares)") in stderr, stderr
    code, _, stderr = cli("export-java", "--player", "greedy", "--out", tmp_path / "none", "--no-compile", "--python", " ")
    assert code == 2 and "--python is the interpreter the class runs" in stderr and not (tmp_path / "none").exists()
    from pokersquares.errors import PokerSquaresError
    with pytest.raises(PokerSquaresError, match="cannot create PyGreedy: java.lang.IllegalStateException: "
                                                "pokersquares: cannot start /nonexistent/python"):
        run("java:PyGreedy", f"{java_classes}{os.pathsep}{tmp_path / 'bad'}", monkeypatch, n=1)


def test_a_class_named_after_the_base_class_is_written_once(java_classes, tmp_path, cli):
    """``PokerSquaresPythonGreedy.class`` matched the base class's pattern as well: listed
    twice, and once the files were moved into place, moved twice (exit 2 after a whole export)."""
    code, stdout, stderr = cli("export-java", "--player", "greedy", "--out", tmp_path / "o", "--classpath",
                               java_classes, "--class-name", "PokerSquaresPythonGreedy")
    assert code == 0, stderr
    written = [line.removeprefix("wrote ") for line in stdout.splitlines() if line.startswith("wrote ")]
    assert len(written) == len(set(written)) and str(tmp_path / "o" / "PokerSquaresPythonGreedy.class") in written
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == sorted(Path(w).name for w in written)


def test_a_link_to_a_file_on_another_file_system_is_written_through(tmp_path, cli):
    """Moved into place, a file whose name in --out is a link to another file system met
    "Invalid cross-device link", and the export stopped half moved (written in place, as
    before the moves, it worked)."""
    elsewhere = Path("/dev/shm")
    if not elsewhere.is_dir() or elsewhere.stat().st_dev == tmp_path.stat().st_dev:
        pytest.skip("no second file system at /dev/shm")
    out = tmp_path / "out"
    out.mkdir()
    target = Path(tempfile.mkdtemp(dir=elsewhere)) / "PyGreedy.java"
    try:
        target.write_text("old")
        (out / "PyGreedy.java").symlink_to(target)
        code, _, stderr = cli("export-java", "--player", "greedy", "--out", out, "--no-compile")
        assert code == 0, stderr
        assert (out / "PyGreedy.java").is_symlink() and "class PyGreedy" in target.read_text()
        assert [p.name for p in target.parent.iterdir()] == ["PyGreedy.java"]  # no copy left beside it
    finally:
        shutil.rmtree(target.parent)


def test_a_changed_base_names_only_the_classes_compiled_against_it(tmp_path):
    """The note of a new or changed base class names the classes in the folder whose
    sources extend it and that are compiled, no other Java class there; without
    compiling it says the old base class's files stay only where there are some."""
    from pokersquares.java_export import BASE_CLASS, _tell_base_changed

    for name, source in [("PyOld", f"public class PyOld extends {BASE_CLASS} {{}}"),
                         ("Other", "public class Other implements PokerSquaresPlayer {}"),
                         ("Unbuilt", f"public class Unbuilt extends {BASE_CLASS} {{}}")]:
        (tmp_path / f"{name}.java").write_text(source)
        if name != "Unbuilt":
            (tmp_path / f"{name}.class").write_bytes(b"\xca\xfe\xba\xbe")
    notes: list[str] = []
    _tell_base_changed(tmp_path, "PyNew", False, False, notes.append)
    assert notes == [f"{BASE_CLASS}.java in {tmp_path} changed: PyOld.class there was compiled against the "
                     f"{BASE_CLASS} before it; compile PyOld.java again with it"]
    (tmp_path / f"{BASE_CLASS}.class").write_bytes(b"\xca\xfe\xba\xbe")
    notes.clear()
    _tell_base_changed(tmp_path, "PyNew", True, False, notes.append)
    assert len(notes) == 1 and notes[0].startswith(f"{BASE_CLASS}.java in {tmp_path} is new: PyOld.class there")
    assert notes[0].endswith(" (its old class files stay until then, for it to run as before)")
