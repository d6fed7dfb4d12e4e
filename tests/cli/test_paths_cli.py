"""Paths no file can have (a name too long, a loop of symbolic links), a store's folder
that is a file, and values of any length: each is one line and exit code 2, said before
any work, that names the path or value (shortened) and what is wrong with it."""

from __future__ import annotations

import os

import pytest

R = ["--prep-time", "0", "--time-per-game", "0.2", "-q"]
LONG = "b" * 300  # longer than any file system's name (255 bytes)


def one_line_error(code, err, says=""):
    return code == 2 and err.startswith("error: ") and err.count("\n") == 1 and says in err


@pytest.fixture
def store(cli, tmp_path):
    """A result store with one game in it."""
    db = tmp_path / "a.sqlite"
    assert cli("run", "--player", "greedy", "--games", "1", *R, "--db", db)[0] == 0
    return db


@pytest.fixture
def loop(tmp_path):
    """A symbolic link that leads back to itself through another."""
    (tmp_path / "loop1").symlink_to("loop2")
    (tmp_path / "loop2").symlink_to("loop1")
    return tmp_path / "loop1"


def commands(path: str, store: str, out: str) -> dict[str, list[str]]:
    """Each command's way of taking ``path``: as its store, an output, an argument."""
    return {
        "run --db": ["run", "--player", "greedy", "--games", "2", *R, "--db", path],
        "results --db": ["results", "--db", path],
        "results --out": ["results", "--db", store, "--export", "csv", "--out", out],
        "compare": ["compare", store, path],
        "tournament --db": ["tournament", "--players", "greedy,random", "--games", "2", *R, "--db", path],
        "sweep --plot": ["sweep", "--player", "greedy", "--param", "flush_weight=0,1", "--games", "1", *R,
                         "--db", store, "--plot", out],
        "optimum --db": ["optimum", "--seeds", "1", "--db", path],
        "serve --db": ["serve", "--db", path],
        "export-java --out": ["export-java", "--out", path],
        "review": ["review", path, "--run", "1"],
        "train -o": ["train", "--player", "og", "--system", "american", "--prep-time", "0.2", f"-o{out}"],
        "experiment matrix --plot": ["experiment", "matrix", "-n", "2", "--db", store, "--plot", out],
    }


NAMES = list(commands("", "", ""))


@pytest.mark.parametrize("name", NAMES)
def test_a_name_too_long_is_one_line_naming_it_shortened_before_any_work(name, cli, store, tmp_path):
    """Every command given a name too long for the file system said "internal error:
    OSError: [Errno 36] File name too long: 'bbbb…'" with the whole name, and exit 1."""
    before = sorted(os.listdir(tmp_path))
    long = tmp_path / f"{LONG}.sqlite"
    code, out, err = cli(*commands(str(long), str(store), str(tmp_path / f"{LONG}.png"))[name])
    assert one_line_error(code, err, "file name too long"), err
    assert LONG not in err and "characters]" in err and len(err) < 300, err
    option = next((word for word in name.split() if word.startswith("-")), None)
    assert option is None or f"cannot use {option} '" in err, err
    assert sorted(os.listdir(tmp_path)) == before  # nothing made: no store, no output


@pytest.mark.parametrize("name", NAMES)
def test_a_loop_of_symbolic_links_is_one_line_naming_it(name, cli, store, loop, tmp_path):
    """``--out loop1`` said "internal error: RuntimeError: Symlink loop from ..." and exit 1
    (``--db loop1`` was said, as "no result store")."""
    code, out, err = cli(*commands(str(loop), str(store), str(loop))[name])
    assert one_line_error(code, err, "a loop of symbolic links"), err
    assert f"{str(loop)!r}" in err, err


def test_a_path_inside_the_folder_of_a_loop_is_named_too(cli, loop):
    code, out, err = cli("export-java", "--out", loop / "java")
    assert one_line_error(code, err, f"cannot use --out {str(loop / 'java')!r}: a loop of symbolic links"), err


def test_a_path_no_check_saw_is_one_line_not_an_internal_error(cli, store, loop, tmp_path, monkeypatch):
    """A path the command's checks do not see (a value of an option that is no path's, or
    one made by the command): the system's error is said as bad input, whatever raised
    it (``Path.resolve`` raises a RuntimeError for a loop)."""
    import pokersquares.cli as cli_module

    expected = tmp_path / f"{LONG}.json"
    code, out, err = cli("bench", "--strength", "--only", "og", "--expected", expected)
    assert one_line_error(code, err, "file name too long") and LONG not in err and "cannot use '" in err, err
    monkeypatch.setattr(cli_module, "unusable", lambda path: None)  # as if the checks missed it
    code, out, err = cli("results", "--db", store, "--export", "csv", "--out", loop)
    assert one_line_error(code, err, f"cannot use {str(loop)!r}: a loop of symbolic links"), err


@pytest.mark.parametrize("command", [["run", "--player", "greedy", "--games", "2", *R], ["serve"]])
def test_a_store_under_a_file_is_said_to_be_under_no_folder(command, cli, tmp_path):
    """``--db text.txt/x.sqlite``, text.txt a file: "folder text.txt is not writable"
    (``run``), "folder text.txt does not exist" (``serve``)."""
    (tmp_path / "text.txt").write_text("hi\n")
    db = tmp_path / "text.txt" / "x.sqlite"
    code, out, err = cli(*command, "--db", db)
    assert one_line_error(code, err, f"{tmp_path / 'text.txt'} is not a folder"), err
    assert "writable" not in err and "does not exist" not in err, err


@pytest.mark.parametrize("args, says", [
    (["run", "--player", "a" * 100_000, "--games", "2"], "unknown player 'aaaa"),
    (["run", "--player", "greedy:flush_weight=" + "1" * 4000, "--games", "2"], "is too large"),
    (["run", "--player", "greedy", "--games", "1" * 4000], "--games must be from 1 to"),
    (["run", "--player", "greedy", "--games", "2", "--seed", "a" * 100_000], "Invalid value for '--seed'"),
    (["results", "--export", "x" * 100_000], "--export"),
    (["results", "--" + "x" * 100_000], "No such option"),
    # Past Python's 4,300 digits int() refuses them: "internal error: ValueError: Exceeds the limit".
    (["run", "--player", "greedy:flush_weight=" + "9" * 5000, "--games", "2"], "an integer of 5,000 digits"),
], ids=["player", "parameter", "games", "seed", "export", "option", "parameter_past_int"])
def test_a_value_of_any_length_is_cut_in_its_message(args, says, cli, tmp_path):
    """A value was echoed whole: 100 KB on stderr for a player's name of 100,000 letters."""
    code, out, err = cli(*args, "--db", tmp_path / "r.sqlite")
    assert one_line_error(code, err, says) and len(err) < 800, err[:1000]
    assert "characters]…" in err, err


def test_a_number_past_pythons_digits_is_one_line(cli, tmp_path):
    """``--games`` of 5,000 digits was "internal error: ValueError: Exceeds the limit (4300
    digits) for integer string conversion", exit 1."""
    code, out, err = cli("run", "--player", "greedy", "--games", "9" * 5000, "--db", tmp_path / "r.sqlite")
    assert one_line_error(code, err, "an integer of 5,000 digits is beyond every setting here"), err[:1000]
    assert not (tmp_path / "r.sqlite").exists()


def test_a_store_in_a_file_system_that_takes_no_files_is_not_said_to_be_full(cli, tmp_path):
    """/proc counts no free space, as it has none: "the disk holding /proc is full"."""
    code, out, err = cli("run", "--player", "greedy", "--games", "2", *R, "--db", "/proc/x.sqlite")
    assert one_line_error(code, err, "/proc") and "full" not in err, err
    if os.geteuid() == 0:  # root may write /proc's folder: SQLite is what fails
        assert "cannot create files in /proc (a virtual file system" in err, err


class _Statvfs:
    def __init__(self, blocks: int, free: int, flag: int) -> None:
        self.f_blocks, self.f_bfree, self.f_bavail, self.f_frsize, self.f_flag = blocks, free, free, 4096, flag


@pytest.mark.parametrize("blocks, free, flag, says", [
    (1000, 0, 0, "the disk holding {} is full"),
    (1000, 0, os.ST_RDONLY, "cannot create files in {} (a read-only file system)"),
    (0, 0, 0, "cannot create files in {} (a virtual file system, with no disk space)"),
    (1000, 1000, 0, None),
], ids=["full", "read-only", "virtual", "room"])
def test_a_store_that_cannot_grow_is_said_full_only_on_a_full_disk(blocks, free, flag, says, tmp_path, monkeypatch):
    """A file system mounted read-only, or one with no disk space at all, counts no free
    space too (statvfs): it is not full, and freeing space would not help."""
    from pokersquares.harness import store

    monkeypatch.setattr(store.os, "statvfs", lambda folder: _Statvfs(blocks, free, flag))
    room = store.no_room(tmp_path / "a.sqlite")
    assert (room and room[0]) == (says and says.format(tmp_path)), room
