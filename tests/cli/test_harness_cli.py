import csv
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[1] / "harness"


@pytest.fixture
def here(cli_here, monkeypatch):
    """``cli_here`` (the command line in this process, its games in processes forked from
    it), with the players of tests/harness/fault_players.py."""
    monkeypatch.syspath_prepend(str(HERE))
    return cli_here


def test_run_json_and_results_export(tmp_path, here):
    db = str(tmp_path / "r.sqlite")
    r = here("run", "--player", "greedy", "--games", "20", "--seed", "5", "--db", db, "--json")
    data = json.loads(r.stdout)
    assert data["games"] == 20 and len(data["scores"]) == 20 and data["player"] == "greedy"
    assert set(data) >= {"player", "system", "games", "mean", "stdev", "stderr", "min", "max", "seconds_per_game", "scores"}
    listing = json.loads(here("results", "--db", db, "--json").stdout)
    assert listing["runs"][0]["finished"] == 20
    csv_text = here("results", "--db", db, "--export", "csv").stdout
    assert csv_text.count("\n") == 21 and csv_text.startswith("run_id,")
    rows = json.loads(here("results", "--db", db, "--export", "json").stdout)
    assert [r["score"] for r in rows] == data["scores"]


def test_tournament_json(tmp_path, here):
    r = here("tournament", "--players", "random,greedy", "--systems", "american;british", "--games", "3",
             "--db", str(tmp_path / "t.sqlite"), "--json")
    t = json.loads(r.stdout)
    assert t["systems"] == ["American", "British"] and t["players"] == ["random", "greedy"]
    assert t["ranking"][0] == "greedy" and t["scores"]["greedy"] == 2.0
    for system in t["systems"]:  # first on each system, and random behind it game by game
        behind = t["behind_first"][system]
        assert behind["first"] == "greedy" and behind["players"]["random"]["diff"] < 0


def test_a_tournament_table_names_each_system_in_full_and_keeps_its_columns(tmp_path, here):
    """A cut name would name another system ("ameritish:34412" is not the contest's
    "ameritish:34412016"), so the first column fits the longest name."""
    r = here("tournament", "--players", "random,greedy", "--systems", "ameritish:34412016;american", "--games", "1",
             "--db", str(tmp_path / "t.sqlite"))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    headers = [line for line in lines if line.startswith("system ")]
    rows = [line for line in lines if line.split()[:1] in (["ameritish:34412016"], ["American"])]
    # totals and normalised under the first, means under the second, behind the first under the third
    assert len(headers) == 3 and len(rows) == 8
    for row, header in zip(rows, [headers[0]] * 4 + [headers[1]] * 2 + [headers[2]] * 2):
        assert len(row) == len(header) and len(row.split()) == 3  # the name, then one column per player


def test_the_results_listing_names_players_and_systems_in_full(tmp_path, here):
    db = str(tmp_path / "r.sqlite")
    player = "hybrid:evaluator=possibility,search=greedy"
    for spec, system in ((player, "single:three_of_a_kind"), ("random", "american")):
        assert here("run", "--player", spec, "--system", system, "--games", "2", "--db", db).returncode == 0
    lines = here("results", "--db", db).stdout.splitlines()
    rows = [line.split() for line in lines[1:3]]
    assert rows[0][1:5] == [player, "Three", "Of", "A"] and rows[0][5] == "Kind"
    assert rows[1][1:3] == ["random", "American"]
    assert len(lines[1]) == len(lines[2])  # the columns line up


def test_a_tournament_lists_players_with_several_parameters(tmp_path, here):
    r = here("tournament", "--players", "random,hybrid:evaluator=possibility,search=greedy", "--systems", "american",
             "--games", "2", "--prep-time", "1", "--time-per-game", "5", "--db", str(tmp_path / "t.sqlite"), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["players"] == ["random", "hybrid:evaluator=possibility,search=greedy"]


def test_kill_then_resume_keeps_exactly_the_finished_games(tmp_path, here):
    db = tmp_path / "k.sqlite"
    args = ["run", "--player", "fault_players:SlowGames", "--games", "40", "--db", str(db), "--json", "--workers", "2"]
    env = dict(os.environ, PYTHONPATH=str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "pokersquares", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.time() + 60
    recorded = 0
    while time.time() < deadline and recorded < 10:
        time.sleep(0.05)
        if db.exists():
            try:
                with sqlite3.connect(db) as c:
                    recorded = c.execute("SELECT COUNT(*) FROM games").fetchone()[0]
            except sqlite3.OperationalError:
                pass
    os.killpg(proc.pid, signal.SIGKILL)  # the run and its workers, at once
    proc.wait()
    with sqlite3.connect(db) as c:
        before = dict(c.execute("SELECT game_index, score FROM games").fetchall())
    assert 10 <= len(before) < 40
    data = json.loads(here(*args).stdout)
    assert data["games"] == 40
    with sqlite3.connect(db) as c:
        after = c.execute("SELECT game_index, score FROM games").fetchall()
    assert len(after) == 40 and sorted(i for i, _ in after) == list(range(40))
    assert all(dict(after)[i] == s for i, s in before.items())


def test_corrupt_and_unwritable_stores_are_reported_not_overwritten(tmp_path, here):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not sqlite" * 100)
    r = here("run", "--player", "random", "--games", "2", "--db", str(bad))
    assert r.returncode != 0 and "not a readable result store" in r.stderr and "Traceback" not in r.stderr
    assert bad.read_bytes() == b"this is not sqlite" * 100
    r = here("run", "--player", "random", "--games", "2", "--db", str(tmp_path / "no" / "such" / "dir.sqlite"))
    assert r.returncode != 0 and "does not exist" in r.stderr


@pytest.mark.parametrize("args,expect", [
    (("run", "--player", "nobody"), "known players"),
    (("run", "--player", "no_such_module_xyz:P"), "cannot import"),
    (("run", "--player", "random", "--games", "0"), "--games must be from 1 to"),
    (("run", "--player", "random", "--system", "pony"), "unknown point system"),
    (("tournament", "--players", "random,nobody"), "known players"),
    (("results", "--db", "/nonexistent/x.sqlite"), "no result store"),
])
def test_bad_input_is_a_one_line_error(tmp_path, args, expect, monkeypatch, cli):
    monkeypatch.chdir(tmp_path)  # (in this process, cli being conftest's: no game is played)
    code, _, err = cli(*args)
    assert code != 0 and expect in err and "Traceback" not in err and err.count("\n") == 1, err


def test_play_prints_moves_and_grid(tmp_path, here):
    r = here("play", "--player", "greedy", "--seed", "0", "--db", str(tmp_path / "p.sqlite"))
    assert r.returncode == 0
    assert r.stdout.startswith(" 1. 6S -> row 0, col 0") and "Total:" in r.stdout
    assert "stored" not in r.stderr
    assert "this game may take 330 s: 300 s of preparation and 30 s of play" in r.stderr  # the defaults
    assert here("players").stdout.startswith("random")


def test_play_at_small_limits_or_in_json_says_nothing_of_how_long(tmp_path, here):
    """The hint is for the contest's limits, which a newcomer's first `play` meets."""
    for k, extra in enumerate((["--prep-time", "10", "--time-per-game", "1"], ["--json"])):
        r = here("play", "--player", "random", "--db", str(tmp_path / f"p{k}.sqlite"), *extra)
        assert r.returncode == 0 and "may take" not in r.stderr, r.stderr


def test_play_says_how_long_a_game_may_take_only_when_it_plays_it(tmp_path, here):
    """A game the store holds at the same limits is shown at once: "this game may take
    330 s" said there was wrong. A stored game at other limits is another game, played."""
    db = str(tmp_path / "p.sqlite")
    first = here("play", "--player", "random", "--db", db)
    assert first.returncode == 0 and "this game may take 330 s" in first.stderr, first.stderr
    again = here("play", "--player", "random", "--db", db)
    assert again.returncode == 0 and again.stdout == first.stdout
    assert "may take" not in again.stderr and "the game stored in run 1 of" in again.stderr, again.stderr
    other = here("play", "--player", "random", "--db", db, "--prep-time", "60", "--time-per-game", "1")
    assert "this game may take 61 s" in other.stderr and "stored" not in other.stderr, other.stderr


def test_play_says_a_game_comes_from_the_store_and_plays_a_penalised_one_again_on_request(tmp_path, here):
    db = str(tmp_path / "p.sqlite")
    first = here("play", "--player", "fault_players:Leaks", "--db", db, "--memory-limit", "250")  # 40 MB a move
    assert first.returncode == 0 and "penalty: memory" in first.stdout and "stored" not in first.stderr
    assert "may take" in first.stderr
    again = here("play", "--player", "fault_players:Leaks", "--db", db)
    assert "penalty: memory" in again.stdout and "may take" not in again.stderr
    assert "the game stored in run 1 of" in again.stderr and "--retry-penalties" in again.stderr
    played_again = here("play", "--player", "fault_players:Leaks", "--db", db, "--memory-limit", "250",
                        "--retry-penalties")  # forgotten, so played: the hint is said
    assert "penalty: memory" in played_again.stdout and "stored" not in played_again.stderr
    assert "this game may take 330 s" in played_again.stderr
    retried = here("play", "--player", "fault_players:Leaks", "--db", db, "--retry-penalties", "--json")  # 4096 MB
    data = json.loads(retried.stdout)
    assert data["penalty"] is None and data["score"] == 82 and data["from_store"] is False
    stored = here("play", "--player", "fault_players:Leaks", "--db", db, "--json")
    assert json.loads(stored.stdout)["from_store"] is True


def test_the_table_counts_the_systems_each_player_is_first_on_or_within_one_se_of_it(capsys):
    """"b" is 1 behind on every deal of S (SE 0: more than one SE behind) and first on T;
    "a" leads S, is 0.25 ± 0.63 behind on T (within one SE) and 0.75 ± 0.48 behind on U
    (between one and two SE: a miss)."""
    from pokersquares.cli.harness import print_table
    from pokersquares.harness.tournament import tournament_table

    scores = {"S": {"a": [10, 20, 30, 40], "b": [9, 19, 29, 39]}, "T": {"a": [1, 1, 1, 1], "b": [3, 1, 1, 0]},
              "U": {"a": [0, 0, 0, 0], "b": [2, 0, 1, 0]}}
    print_table(tournament_table(["a", "b"], ["S", "T", "U"], 4, scores))
    lines = capsys.readouterr().out.splitlines()
    assert lines[lines.index(next(x for x in lines if x.startswith("behind each system's first"))) + 2].split() == [
        "S", "first", "-1.00", "±", "0.00"]
    assert next(x for x in lines if x.startswith("first or within 1 SE")).split()[-6:] == [
        "2", "of", "3", "2", "of", "3"]


def test_the_same_secret_replays_the_players_randomness_in_a_fresh_store(tmp_path, here):
    """Each store draws its own key of the players' seeds, so a fixed-work run in a fresh
    store played other games than the published one. `--secret` gives the key: the same
    games in any store; a store holding the run under another key refuses it, unchanged."""
    def scores(db, *more):
        done = here("run", "-p", "random", "--games", "6", "--db", str(tmp_path / db), "--json", *more)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)["scores"]

    keyed = scores("a.sqlite", "--secret", "paper-2026")
    assert scores("b.sqlite", "--secret", "paper-2026") == keyed
    assert scores("c.sqlite") != keyed  # a fresh key (6 random games alike by chance: about 1e-8)
    refused = here("run", "-p", "random", "--games", "8", "--db", str(tmp_path / "c.sqlite"), "--secret", "paper-2026")
    assert refused.returncode == 2 and refused.stderr.strip().splitlines()[-1] == (
        f"error: {tmp_path / 'c.sqlite'} holds the run of random on American played under another secret: its games "
        "would not be one run's with these; give another --db, or leave the secret out to resume it")
    with sqlite3.connect(tmp_path / "c.sqlite") as conn:
        assert conn.execute("SELECT COUNT(*), MAX(games) FROM games JOIN runs USING (run_id)").fetchone() == (6, 6)
    # resumed under its own key, with or without saying it
    assert scores("a.sqlite", "--secret", "paper-2026", "--games", "7")[:6] == keyed
    tour = here("tournament", "--players", "random", "--systems", "american", "--games", "6", "--secret", "paper-2026",
                "--db", str(tmp_path / "t.sqlite"), "--json", "--prep-time", "0")
    assert tour.returncode == 0, tour.stderr
    totals = json.loads(tour.stdout)["totals"]["American"]
    assert totals["random"] == sum(keyed), totals
    bad = here("run", "-p", "random", "--games", "2", "--db", str(tmp_path / "d.sqlite"), "--secret", "")
    assert bad.returncode == 2 and "--secret must be printable text" in bad.stderr and not (tmp_path / "d.sqlite").exists()


def test_a_sweep_with_a_secret_replays_in_a_fresh_store_and_results_show_the_secret(tmp_path, here):
    """`sweep` took no --secret: each fresh store drew its own keys, so a fixed-work sweep
    played other games in another store; and `results` never showed a run's secret, the
    one thing needed to replay a figure elsewhere (it took sqlite3; then only `--json` and the
    exports did, not its table)."""
    sweep = ("sweep", "-p", "tiger:iterations=20", "--param", "cp=10,20", "--games", "3", "--time-per-game", "5",
             "--prep-time", "0", "--json")

    def games(db, *more):
        done = here(*sweep, "--db", str(tmp_path / db), *more)
        assert done.returncode == 0, done.stderr
        rows = json.loads(here("results", "--db", str(tmp_path / db), "--export", "json").stdout)
        return [(r["player"], r["seed"], r["score"], r["secret"]) for r in rows]

    keyed = games("a.sqlite", "--secret", "paper-2026")
    assert len(keyed) == 6 and {s for *_, s in keyed} == {"paper-2026"}
    assert games("b.sqlite", "--secret", "paper-2026") == keyed
    listing = json.loads(here("results", "--db", str(tmp_path / "a.sqlite"), "--json").stdout)
    assert [(r["player"], r["secret"]) for r in listing["runs"]] == [("tiger:iterations=20,cp=10", "paper-2026"),
                                                                     ("tiger:iterations=20,cp=20", "paper-2026")]
    table = here("results", "--db", str(tmp_path / "a.sqlite")).stdout.splitlines()  # the table too: last column
    assert table[0].split()[-1] == "secret" and [line.split()[-1] for line in table[1:3]] == ["paper-2026"] * 2
    csv_rows = list(csv.DictReader(here("results", "--db", str(tmp_path / "a.sqlite"), "--export", "csv").stdout
                                   .splitlines()))
    assert [r["secret"] for r in csv_rows] == ["paper-2026"] * 6
    # a store holding the sweep under its own key: refused in one line, nothing played
    drawn = games("c.sqlite")
    assert [s for *_, s in drawn] != [s for *_, s in keyed]
    refused = here(*sweep, "--db", str(tmp_path / "c.sqlite"), "--secret", "paper-2026")
    assert refused.returncode == 2 and refused.stderr.strip().splitlines()[-1] == (
        f"error: {tmp_path / 'c.sqlite'} holds the run of tiger:iterations=20,cp=10 on American played under another "
        "secret: its games would not be one run's with these; give another --db, or leave the secret out to resume it")
    replayed = [(r["player"], r["secret"]) for r in listing["runs"]]  # each run replays with `run --secret`
    again = here("run", "-p", replayed[1][0], "--games", "3", "--time-per-game", "5", "--prep-time", "0", "--json",
                 "--secret", replayed[1][1], "--db", str(tmp_path / "d.sqlite"))
    assert json.loads(again.stdout)["scores"] == [score for p, _, score, _ in keyed if p == replayed[1][0]]


def test_a_player_written_with_its_parameters_in_another_order_is_named_as_the_store_holds_it(tmp_path, here):
    """`run` and `play` resumed the store's run of the player written the other way but
    named it as typed, so the `compare --player` the output suggested found no run; and
    `tournament --players` listing one player both ways drew its progress bar and made an
    empty store before `a tournament lists a player twice`."""
    db = str(tmp_path / "o.sqlite")
    common = ("--system", "british", "--prep-time", "0", "--time-per-game", "5", "--db", db, "--json")
    first = json.loads(here("run", "-p", "tiger:iterations=20,cp=5", "--games", "2", "-q", *common).stdout)
    again = here("run", "-p", "tiger:cp=5, iterations=20", "--games", "3", "-q", *common)
    assert again.returncode == 0, again.stderr
    data = json.loads(again.stdout)
    assert data["player"] == "tiger:iterations=20,cp=5" and data["run_id"] == first["run_id"]
    assert data["scores"][:2] == first["scores"]
    played = json.loads(here("play", "-p", "tiger:cp=5,iterations=20", "--seed", "0", *common).stdout)
    assert played["player"] == "tiger:iterations=20,cp=5" and played["from_store"] is True
    assert played["score"] == first["scores"][0]
    shown = here("compare", db, "--player", data["player"], "--json")
    assert shown.returncode == 0, shown.stderr
    fresh = tmp_path / "t.sqlite"
    r = here("tournament", "--players", "tiger:iterations=20,cp=5;tiger:cp=5,iterations=20", "--systems", "american",
             "--games", "1", "--prep-time", "0", "--time-per-game", "5", "--db", str(fresh))
    assert r.returncode == 2 and not fresh.exists()
    assert r.stderr.strip().splitlines() == [
        "error: --players lists a player twice: tiger:iterations=20,cp=5 and tiger:cp=5,iterations=20 "
        "(its parameters in another order)"]


def test_a_late_entrant_is_told_which_games_are_taken_under_quiet_and_json_too(tmp_path, cli):
    """The line saying a tournament takes another's games went through the progress bar,
    so -q and --json left it out: a late entrant's table then held games it never saw
    played. It is a line of stderr as the preparation's are (stdout under --json stays JSON)."""
    db = tmp_path / "t.sqlite"
    limits = ("--systems", "american;british", "--games", "2", "--time-per-game", "5", "--prep-time", "0",
              "--workers", "1", "--db", db)
    code, out, err = cli("tournament", "--players", "random,greedy", *limits, "-q")
    assert code == 0 and "taking" not in err, err
    code, out, err = cli("tournament", "--players", "random,greedy,greedy:flush_weight=2", *limits, "-q")
    assert code == 0, err
    assert [line for line in err.splitlines() if "taking" in line] == [
        "taking 8 games of tournament 1 (random, greedy on 2 systems): the same deals, limits and code, "
        "not played again"]
    code, out, err = cli("tournament", "--players", "random,greedy,greedy:flush_weight=2,greedy:flush_weight=3",
                         *limits, "--json")
    assert code == 0, err
    assert len(json.loads(out)["players"]) == 4
    assert [line for line in err.splitlines() if "taking" in line] == [
        "taking 12 games of tournament 2 (random, greedy, greedy:flush_weight=2 on 2 systems): the same deals, "
        "limits and code, not played again"]


def test_compare_says_a_run_of_one_game_is_one_game_in_its_column(tmp_path, cli):
    db = tmp_path / "r.sqlite"
    for player, games in (("random", "1"), ("greedy", "2")):
        code, out, err = cli("run", "--player", player, "--games", games, "--time-per-game", "5", "--prep-time", "0",
                             "--db", db, "-q")
        assert code == 0, err
    code, out, err = cli("compare", db)
    assert code == 0, err
    one, two = out.splitlines()[:2]
    assert " 1 game " in one and " games " not in one and " 2 games " in two
    assert one.index("±") == two.index("±")  # the columns after it still line up
