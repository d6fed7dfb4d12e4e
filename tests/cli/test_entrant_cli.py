"""A contest entrant's own player on the command line (README "Your own player")."""

from pokersquares import deal


def test_a_run_names_the_deal_seeds_of_its_penalised_games(cli, tmp_path, monkeypatch):
    """"1 game scored the penalty: error: IndexError: ..." left a student to guess which
    deal to replay with `play --seed S`: each reason's line names its games' seeds."""
    (tmp_path / "odd_first_card.py").write_text(
        "from pokersquares.harness.player import BasePlayer\n\n"
        "class OddFirstCard(BasePlayer):\n"
        "    name = 'odd'\n\n"
        "    def choose(self, grid, card, seconds_left):\n"
        "        if (grid == -1).all() and card % 2:\n"
        "            raise IndexError('list index out of range')\n"
        "        return int((grid == -1).argmax())\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    odd = [s for s in range(10, 18) if deal(s)[0] % 2]
    assert 1 < len(odd) < 8
    code, out, err = cli("run", "--player", "odd_first_card:OddFirstCard", "--seed", "10", "--games", "8",
                         "--time-per-game", "1", "--prep-time", "0", "--workers", "1", "--db", tmp_path / "r.sqlite",
                         "-q")
    assert code == 0, err
    seeds = ", ".join(map(str, odd))
    assert (f"warning: odd_first_card:OddFirstCard on American: {len(odd)} games (seeds {seeds}) scored the "
            f"penalty: error: IndexError: list index out of range\n") in err


def test_the_seeds_named_are_five_at_most():
    from pokersquares.cli.harness import _seeds_text
    assert _seeds_text([7]) == "seed 7"
    assert _seeds_text([9, 3]) == "seeds 3, 9"
    assert _seeds_text(list(range(100, 0, -1))) == "seeds 1, 2, 3, 4, 5 and 95 more"
