"""An organiser running a new edition of the contest with this toolkit: checking the
entrants' players before the event, running the tournament, publishing standings a
student can check (who won, and why a player scored what it did)."""

import json
import textwrap


def _tournament(cli, db, *more):
    return cli("tournament", "--players", "fault_players:Illegal,random", "--systems", "american,hypercorner:7",
               "--games", "2", "--time-per-game", "5", "--prep-time", "0", "--workers", "1", "--db", db, *more)


def test_a_tournaments_standings_say_why_each_penalised_game_scored_the_penalty(tmp_path, cli):
    # The table counted penalties and nothing else: a student scored 0 on a system had to
    # export every game of the tournament to learn why (run says why; tournament did not).
    db = tmp_path / "contest.sqlite"
    code, out, err = _tournament(cli, db)
    assert code == 0, err
    # fault_players:Illegal plays an occupied cell in odd-seeded games: seed 1, on both systems.
    why = "  fault_players:Illegal: 2 games (American, hypercorner:7; seed 1): illegal play: "
    assert why in out
    assert "random: " not in out.split("penalised games and why")[1]  # a player without penalties is not listed
    code, shown, err = cli("results", "--db", db, "--tournament", "1")  # the published standings say the same
    assert code == 0, err
    assert why in shown
    code, text, err = cli("results", "--db", db, "--tournament", "1", "--json")
    reasons = json.loads(text)["penalty_reasons"]
    assert reasons["American"]["random"] == {} and reasons["hypercorner:7"]["random"] == {}
    (reason, seeds), = reasons["hypercorner:7"]["fault_players:Illegal"].items()
    assert reason.startswith("illegal play: ") and seeds == [1]
    code, text, err = _tournament(cli, db, "--json")  # resumed, the tournament's own JSON holds them too
    assert code == 0, err
    assert list(json.loads(text)["penalty_reasons"]["American"]["fault_players:Illegal"].values()) == [[1]]


def test_a_late_entrant_is_told_which_games_are_taken_not_played_again(tmp_path, cli):
    db = tmp_path / "contest.sqlite"
    limits = ("--systems", "american,british", "--games", "3", "--time-per-game", "5", "--prep-time", "0",
              "--workers", "1", "--db", db)
    code, out, err = cli("tournament", "--players", "random,greedy", *limits)
    assert code == 0 and "taking" not in err, err
    code, out, err = cli("tournament", "--players", "random,greedy,greedy:flush_weight=2", *limits)
    assert code == 0, err
    said = [line for line in err.replace("\r", "\n").splitlines() if "taking" in line]  # a line of its own
    assert said == ["taking 12 games of tournament 1 (random, greedy on 2 systems): the same deals, limits and "
                    "code, not played again"]
    code, text, err = cli("results", "--db", db, "--tournament", "2", "--json")
    table = json.loads(text)
    assert table["complete"] and list(table["totals"]["American"]) == ["random", "greedy", "greedy:flush_weight=2"]


def _entrant(tmp_path, monkeypatch, name, source):
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
    monkeypatch.syspath_prepend(str(tmp_path))
    return f"{name}:Player"


def test_an_entrant_that_exits_when_built_is_one_line_and_exit_code_2(tmp_path, monkeypatch, cli):
    # A student's constructor calling sys.exit(3) ended `play`, `run` and `tournament` with
    # exit code 3 and no word at all; a module exiting at import, exit 1 and its message.
    built = _entrant(tmp_path, monkeypatch, "organiser_exits_built", """
        import sys
        class Player:
            name, cores = "exits", 1
            def __init__(self):
                sys.exit(3)
        """)
    imported = _entrant(tmp_path, monkeypatch, "organiser_exits_imported", """
        import sys
        sys.exit("bye from the module")
        """)
    db = tmp_path / "check.sqlite"
    limits = ("--time-per-game", "1", "--prep-time", "0", "--db", db)
    for spec, says in ((built, "sys.exit(3)"), (imported, "sys.exit('bye from the module')")):
        for args, option in ((("play", "--player", spec), "--player"),
                             (("run", "--player", spec, "--games", "2"), "--player"),
                             (("tournament", "--players", f"{spec},random", "--systems", "american", "--games", "2"),
                              "--players")):
            code, out, err = cli(*args, *limits)
            assert code == 2, (args, code, err)
            lines = [line for line in err.splitlines() if line.startswith("error:")]
            assert len(lines) == 1 and lines[0].startswith(f"error: {option} {spec}: ") and says in lines[0], err
            assert out == ""
    assert not db.exists()  # checked before the store is touched


def test_published_standings_give_level_players_one_rank(capsys):
    # Two students level on the tournament score were ranked 1 and 2 by the order the
    # organiser listed them in, the second "0.000 ± 0.000 behind" the first.
    from pokersquares.cli.harness import print_table
    from pokersquares.harness.tournament import tournament_table

    scores = {"American": {"ada": [1, 2], "bob": [30, 40], "cy": [30, 40], "dee": [5, 6]},
              "British": {"ada": [1, 1], "bob": [9, 9], "cy": [9, 9], "dee": [1, 1]}}
    table = tournament_table(["ada", "bob", "cy", "dee"], ["American", "British"], 2, scores)
    assert table["ranking"] == ["bob", "cy", "dee", "ada"]
    print_table(table)
    ranks = [line for line in capsys.readouterr().out.splitlines() if line[:1].isdigit()]
    assert [line.split("  ")[0] for line in ranks] == ["1. bob", "1. cy", "3. dee", "4. ada"]
    assert ranks[1].endswith("(level with bob)")
