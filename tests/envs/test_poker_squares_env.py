import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

import pokersquares.envs  # noqa: E402,F401  (registers PokerSquares-v0)
from pokersquares import AMERICAN, BRITISH, PointSystem, deal  # noqa: E402
from pokersquares.envs import MaskedRandomPolicy, PlayerPolicy, PokerSquaresEnv, PolicyPlayer  # noqa: E402
from pokersquares.errors import IllegalPlacementError  # noqa: E402
from pokersquares.game import Grid  # noqa: E402
from pokersquares.harness.game_play import play_game  # noqa: E402
from pokersquares.harness.registry import make_player  # noqa: E402
from pokersquares.harness.runner import RunSpec, run_games  # noqa: E402

NEG = PointSystem((-3, 2, 5, 10, 15, 20, 25, 50, 75, 100), "negative high card")


def episode(env, policy, seed, options=None):
    obs, info = env.reset(seed=seed, options=options)
    total, steps = 0.0, []
    done = False
    while not done:
        assert obs in env.observation_space
        action = policy(obs, info)
        steps.append((obs["card"], action // 5, action % 5))
        obs, reward, done, truncated, info = env.step(action)
        assert not truncated
        total += reward
    return total, steps, obs, info


@pytest.mark.parametrize("kwargs", [{}, {"point_system": "british", "reward": "final", "render_mode": "ansi"}])
def test_passes_the_gymnasium_checker(kwargs):
    env = gym.make("PokerSquares-v0", **kwargs)
    check_env(env.unwrapped)
    assert isinstance(gym.make("pokersquares.envs:PokerSquares-v0").unwrapped, PokerSquaresEnv)


def test_reset_deals_the_contest_deal_and_observes_it():
    env = PokerSquaresEnv(BRITISH)
    obs, info = env.reset(seed=77)
    assert obs["card"] == deal(77)[0] and info["seed"] == 77 and info["action_mask"].sum() == 25
    assert (obs["grid"] == -1).all() and list(obs["points"]) == list(BRITISH.points)
    assert obs["undealt"].sum() == 51 and obs["undealt"][deal(77)[0]] == 0
    obs, *_ = env.step(12)
    assert obs["grid"][12] == deal(77)[0] and obs["card"] == deal(77)[1] and obs["undealt"].sum() == 50
    first, *_ = env.reset()
    second, *_ = env.reset()
    assert env.deal_seed is not None and env.observation_space.contains(first)


@pytest.mark.parametrize("system", [AMERICAN, NEG])
def test_random_episode_scores_as_the_harness_scores_the_same_deal(system):
    env = PokerSquaresEnv(system)
    for seed in (3, 4):
        policy = MaskedRandomPolicy(seed)
        total, steps, last, info = episode(env, policy, seed)
        grid = Grid()
        for card, row, col in steps:
            grid.place(card, row, col)
        assert total == grid.score(system) == info["score"] and last["card"] == 52 and info["action_mask"].sum() == 0
        assert [c for c, _, _ in steps] == deal(seed)[:25]
        # The same policy as a harness player: the same placements and the same score.
        player = PolicyPlayer(MaskedRandomPolicy())
        player.set_point_system(system, 0.0)
        rec = play_game(player, system, seed, 30.0, player_seed=seed)  # seeded as the episode's policy was
        assert rec.penalty is None and rec.placements == steps and rec.score == total
    # reward="final": the same return, all of it at the last step
    final = PokerSquaresEnv(system, reward="final")
    obs, info = final.reset(seed=4)
    policy, rewards = MaskedRandomPolicy(4), []
    for _ in range(25):
        obs, reward, done, _, info = final.step(policy(obs, info))
        rewards.append(reward)
    assert done and rewards[:-1] == [0.0] * 24 and rewards[-1] == total


def test_illegal_actions_are_errors_not_no_ops():
    env = PokerSquaresEnv()
    with pytest.raises(gym.error.ResetNeeded):
        env.step(0)
    env.reset(seed=1)
    env.step(0)
    for bad in (0, 25, -1, 3.0, True, "1", np.array([1, 2]), np.array([1.0])):
        with pytest.raises(IllegalPlacementError):
            env.step(bad)
    assert env.turn == 1
    env.step(np.array([[1]]))  # a batch of one cell, as some agents hand actions
    assert env.turn == 2 and env.grid[1] == env.deck[1]
    for cell in range(2, 25):
        env.step(np.int64(cell))
    with pytest.raises(IllegalPlacementError, match="over"):
        env.step(0)


def test_a_reset_that_fails_leaves_the_episode_as_it_was_and_any_java_long_deals():
    from pokersquares.errors import InvalidPointSystemError, InvalidSeedError, PokerSquaresError

    env = PokerSquaresEnv()
    env.reset(seed=1)
    for cell in range(10):
        env.step(cell)
    before = (env.point_system, env.deal_seed, list(env.deck), env.grid.copy(), env.turn)
    for seed, options, error in [(2 ** 63, {"point_system": "british"}, InvalidSeedError),
                                 (2, {"point_system": None}, InvalidPointSystemError),
                                 (2, {"point_system": 5}, InvalidPointSystemError),
                                 (2, {"point_system": ["a"] * 10}, InvalidPointSystemError),
                                 (2, {"point_system": [1.5] * 10}, InvalidPointSystemError),
                                 (2, {"point_system": [True] * 10}, InvalidPointSystemError),
                                 (2, {"point_system": set(range(10))}, InvalidPointSystemError),  # no hand order
                                 (2, {"point_system": dict.fromkeys(range(10), 5)}, InvalidPointSystemError),
                                 (2, {"point_system": np.zeros((2, 5), dtype=int)}, InvalidPointSystemError),
                                 (2, "british", PokerSquaresError),
                                 (2, {"points": "british"}, PokerSquaresError)]:
        with pytest.raises(error):
            env.reset(seed=seed, options=options)
        after = (env.point_system, env.deal_seed, list(env.deck), env.grid.copy(), env.turn)
        assert after[:3] == before[:3] and np.array_equal(after[3], before[3]) and after[4] == before[4]
    obs, _ = env.reset(seed=-1, options={"point_system": np.array(BRITISH.points)})
    assert env.point_system == BRITISH and env.deck == deal(-1)[:25] and env.deal_seed == -1
    assert env.reset(seed=np.int64(-1))[0]["card"] == obs["card"]


def test_a_harness_player_as_a_policy_plays_the_harness_game():
    env = PokerSquaresEnv(BRITISH)
    policy = PlayerPolicy("greedy", prep_time=0.0)
    harness = run_games(RunSpec("greedy", BRITISH, 3, 20, 30.0, 0.0), range(3), workers=1)
    for rec in harness:
        total, steps, *_ = episode(env, policy, rec.seed)
        assert steps == rec.placements and total == rec.score
    # a point system chosen per episode reaches the player too
    total, steps, *_ = episode(env, policy, 20, options={"point_system": "american"})
    player = make_player("greedy")
    player.set_point_system(AMERICAN, 0.0)
    rec = play_game(player, AMERICAN, 20, 30.0)
    assert steps == rec.placements and total == rec.score


def test_a_random_player_as_a_policy_plays_the_run_it_would_play_seeded_as_the_harness_seeds():
    env = PokerSquaresEnv(AMERICAN)
    harness = run_games(RunSpec("random", AMERICAN, 3, 40, 30.0, 0.0, secret="s1"), range(3), workers=1)
    policy = PlayerPolicy("random", prep_time=0.0, secret="s1")
    for rec in harness:
        total, steps, *_ = episode(env, policy, rec.seed)
        assert steps == rec.placements and total == rec.score
    # without a secret: the game play_game plays outside a run, and never one seeded with the deal seed
    policy = PlayerPolicy("random", prep_time=0.0)
    _, steps, *_ = episode(env, policy, 41)
    player = make_player("random")
    player.set_point_system(AMERICAN, 0.0)
    assert steps == play_game(player, AMERICAN, 41, 30.0).placements
    assert steps != play_game(player, AMERICAN, 41, 30.0, player_seed=41).placements


def test_a_player_policy_refuses_an_episode_joined_part_way():
    from pokersquares.errors import PokerSquaresError

    env, policy = PokerSquaresEnv(AMERICAN), PlayerPolicy("greedy", prep_time=0.0)
    obs, info = env.reset(seed=4)
    obs, *_, info = env.step(policy(obs, info))
    obs, *_, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))  # a move the policy did not choose
    with pytest.raises(PokerSquaresError, match="not the one the player built"):
        policy(obs, info)
    obs, info = env.reset(seed=5)  # a new episode is welcome
    for _ in range(25):
        obs, _, done, _, info = env.step(policy(obs, info))
    assert done


def test_a_policy_by_module_path_plays_in_the_harness():
    spec = "pokersquares.envs.policies:PolicyPlayer:policy=pokersquares.envs.policies:MaskedRandomPolicy"
    recs = run_games(RunSpec(spec, AMERICAN, 4, 0, 30.0, 0.0, secret="k"), range(4), workers=1)
    assert all(r.penalty is None and len(r.placements) == 25 for r in recs)
    again = run_games(RunSpec(spec, AMERICAN, 4, 0, 30.0, 0.0, secret="k"), range(4), workers=2)
    assert [r.placements for r in again] == [r.placements for r in recs]  # reseeded each game


def test_policies_refuse_what_they_cannot_use():
    from pokersquares.errors import PokerSquaresError

    for bad in (5, object()):
        with pytest.raises(PokerSquaresError, match="needs a player"):
            PlayerPolicy(bad)
    with pytest.raises(PokerSquaresError, match="a policy is a callable"):
        PolicyPlayer(5)
    with pytest.raises(PokerSquaresError, match="a seed is an integer"):
        MaskedRandomPolicy(seed="x")
    assert MaskedRandomPolicy(seed=-1)({}, {"action_mask": np.eye(1, 25, 7, dtype=np.int8)[0]}) == 7
    assert MaskedRandomPolicy(seed=3).rng.integers(1000) == np.random.default_rng(3).integers(1000)
    for info in ({}, {"action_mask": np.zeros(25, dtype=np.int8)}):
        with pytest.raises(PokerSquaresError, match="no empty cell"):
            MaskedRandomPolicy(seed=1)({}, info)
    env, policy = PokerSquaresEnv(), PlayerPolicy("greedy", prep_time=0.0)
    obs, info = env.reset(seed=4)
    for _ in range(25):
        obs, _, done, _, info = env.step(policy(obs, info))
    assert done
    with pytest.raises(PokerSquaresError, match="episode is over"):
        policy(obs, info)


@pytest.mark.parametrize("answer", [3.9, "3", True, np.float64(2.0), None, [3]])
def test_a_policy_player_scores_a_malformed_answer_as_the_harness_does_not_as_a_cell(answer):
    # The environment refuses 3.9, "3" and True as actions; as a harness player the same
    # policy must not have them silently turned into cells 3 and 1.
    def policy(obs, info):
        return answer if info["turn"] == 0 else int(np.flatnonzero(info["action_mask"])[0])

    player = PolicyPlayer(policy)
    player.set_point_system(NEG, 0.0)
    rec = play_game(player, NEG, 1, 30.0)
    assert rec.penalty is not None and rec.penalty.startswith("malformed answer") and rec.placements == []
    assert rec.score == NEG.penalty


def test_a_policy_player_takes_what_the_environment_takes():
    # numpy integers and a batch of one integer cell, as env.step takes them
    answers = iter([np.int64(3), np.array([4]), np.array([[5]]), np.uint8(6)])

    def policy(obs, info):
        return next(answers, None) or int(np.flatnonzero(info["action_mask"])[0])

    player = PolicyPlayer(policy)
    player.set_point_system(AMERICAN, 0.0)
    rec = play_game(player, AMERICAN, 1, 30.0)
    assert rec.penalty is None and [(r * 5 + c) for _, r, c in rec.placements[:4]] == [3, 4, 5, 6]


def test_a_policy_player_refuses_what_is_not_a_position_in_one_line():
    """Unprepared, its policy was shown points of all 0 and its game scored as if prepared;
    a card on the grid got a cell, and card 60 or a grid of 24 cells was numpy's IndexError."""
    from pokersquares.errors import PokerSquaresError

    seen = []

    def policy(obs, info):
        seen.append(obs["points"].tolist())
        return int(np.flatnonzero(info["action_mask"])[0])

    player = PolicyPlayer(policy)
    rec = play_game(player, AMERICAN, 0, 30.0)
    assert rec.penalty is not None and "call set_point_system" in rec.penalty and seen == []
    grid = np.full(25, -1, dtype=np.int8)
    grid[:20] = np.arange(20)
    with pytest.raises(PokerSquaresError, match="call set_point_system.* before choose"):
        player.choose(grid, 30, 1.0)
    player.set_point_system(AMERICAN, 0.0)
    for bad_grid, card, words in ((grid, 5, "already on the grid"), (grid, 60, "card id 0..51, got 60"),
                                  (np.full(24, -1, dtype=np.int8), 3, "25 cells"),
                                  (np.arange(25, dtype=np.int8), 30, "grid is full")):
        with pytest.raises(IllegalPlacementError, match=words):
            player.choose(bad_grid, card, 1.0)
    assert player.choose(grid.tolist(), 30, 1.0) == 20 and seen == [list(AMERICAN.points)]


class _Answers:
    """A harness player whose first answer is given; the rest are the first empty cell."""

    def __init__(self, first):
        self.first = first

    def set_point_system(self, point_system, budget_s):
        pass

    def start_game(self):
        self.used, self.moves = set(), 0

    def get_play(self, card, seconds_left):
        self.moves += 1
        if self.moves == 1:
            return self.first
        cell = min(set(range(25)) - self.used)
        self.used.add(cell)
        return cell // 5, cell % 5


@pytest.mark.parametrize("answer", [(0, 7), (1, -1), (5, 0), (-1, 4), None, "0 1", (True, 1), (0.5, 1), [1, 2, 3],
                                    (np.float64(1.0), 2)])
def test_a_player_policy_never_turns_an_answer_the_harness_refuses_into_a_cell(answer):
    # play_game scores these as an illegal or malformed play (or a timeout for None); as a
    # policy, (0, 7) must not become cell 7 = (1, 2), nor (1, -1) cell 4.
    from pokersquares.errors import PokerSquaresError

    env = PokerSquaresEnv(AMERICAN)
    obs, info = env.reset(seed=1)
    rec = play_game(_Answers(answer), AMERICAN, 1, 30.0)
    assert rec.penalty is not None and rec.placements == []
    with pytest.raises(PokerSquaresError, match="answered"):
        PlayerPolicy(_Answers(answer), prep_time=0.0)(obs, info)
    assert PlayerPolicy(_Answers((np.int64(1), 2)), prep_time=0.0)(obs, info) == 7


def test_a_policy_sees_the_same_info_in_the_environment_and_as_a_harness_player():
    # info["score"] (the grid's value so far) is in the environment's info; a policy that
    # reads it must not fail with a KeyError once it plays in the harness.
    class ScoreReader:
        def __init__(self):
            self.seen, self.random = [], MaskedRandomPolicy(7)

        def set_seed(self, seed):
            self.random.set_seed(7)

        def __call__(self, obs, info):
            self.seen.append((info["score"], info["turn"], info["point_system"], info["action_mask"].tolist()))
            return self.random(obs, info)

    env, in_env = PokerSquaresEnv(NEG), ScoreReader()
    episode(env, in_env, 5)
    in_harness = ScoreReader()
    player = PolicyPlayer(in_harness)
    player.set_point_system(NEG, 0.0)
    rec = play_game(player, NEG, 5, 30.0)
    assert rec.penalty is None and in_harness.seen == in_env.seen


@pytest.mark.parametrize("bad", [b"0123456789", bytearray(b"0123456789"), {i: 0 for i in range(10)}])
def test_bytes_and_mappings_are_not_ten_integers(bad):
    # b"0123456789" iterates as the ten integers 48..57: a point system nobody meant.
    from pokersquares.errors import InvalidPointSystemError

    with pytest.raises(InvalidPointSystemError, match="ten integers"):
        PokerSquaresEnv(bad)
    env = PokerSquaresEnv()
    with pytest.raises(InvalidPointSystemError, match="ten integers"):
        env.reset(seed=1, options={"point_system": bad})


def test_two_java_longs_never_seed_the_same_later_episodes():
    """The deal is the contest's for any Java long; the generator that draws later
    unseeded episodes gets a seed of its own for each (-1 and 2**63 - 1 shared one)."""
    from pokersquares.envs.poker_squares import PokerSquaresEnv

    later = {}
    for seed in (-1, 2 ** 63 - 1, -(2 ** 63), 0):
        env = PokerSquaresEnv()
        env.reset(seed=seed)
        later[seed] = [env.reset()[1]["seed"] for _ in range(3)]
    assert len({tuple(v) for v in later.values()}) == 4


def test_a_policy_named_by_module_path_that_is_not_callable_is_refused_before_any_game(cli, tmp_path):
    # pokersquares.envs.ENV_ID is a string: as a policy it is refused when the player is
    # built, in one line and before the store is made, not as every game's penalty.
    from pokersquares.errors import PokerSquaresError

    with pytest.raises(PokerSquaresError, match="not a callable"):
        PolicyPlayer("pokersquares.envs:ENV_ID")
    db = tmp_path / "r.sqlite"
    code, out, err = cli("play", "--player", "pokersquares.envs.policies:PolicyPlayer:policy=pokersquares.envs:ENV_ID",
                         "--prep-time", "0", "--time-per-game", "1", "--db", db, "--json")
    assert code == 2 and out == "" and "not a callable" in err and err.count("\n") == 1
    assert not db.exists()


def test_a_reward_or_render_mode_that_is_no_text_is_refused_in_one_line():
    # np.array(["hands", "final"]) in REWARDS compared elementwise: numpy's "truth value of
    # an array ... is ambiguous", not the environment's word.
    from pokersquares.errors import PokerSquaresError

    for kwargs in ({"reward": np.array(["hands", "final"])}, {"render_mode": np.array(["ansi", "human"])},
                   {"reward": "nope"}, {"render_mode": "human"}):
        with pytest.raises(PokerSquaresError, match="must be"):
            PokerSquaresEnv(**kwargs)


def test_an_action_whose_index_fails_is_an_illegal_placement():
    # A torch float tensor (or a many-element one) has __index__ and raises TypeError from it.
    class FloatTensor:
        def __index__(self):
            raise TypeError("only integer tensors of a single element can be converted to an index")

    env = PokerSquaresEnv()
    env.reset(seed=1)
    with pytest.raises(IllegalPlacementError, match="cell index"):
        env.step(FloatTensor())
    assert env.turn == 0


def test_a_masked_random_policy_refuses_a_mask_that_is_not_one_flag_per_cell():
    # A vector environment's (2, 25) mask was flattened: cell 23 of the first grid, or 37, no cell at all.
    from pokersquares.errors import PokerSquaresError

    vec = gym.vector.SyncVectorEnv([lambda: gym.make("PokerSquares-v0")] * 2)
    obs, info = vec.reset(seed=1)
    for mask in (info["action_mask"], np.ones(24, dtype=np.int8), [0] * 29 + [1], "abc", ["1"] * 25):
        with pytest.raises(PokerSquaresError, match="25 flags"):
            MaskedRandomPolicy(1)({}, {"action_mask": mask})
    assert MaskedRandomPolicy(1)({}, {"action_mask": [False] * 7 + [True] + [False] * 17}) == 7


def test_a_masked_random_policy_has_one_generator_per_java_long():
    # Masking to 63 bits gave -1 and 2**63 - 1 the same generator, as the environment once did.
    draws = {s: tuple(MaskedRandomPolicy(s).rng.integers(1000, size=8)) for s in (-1, 2 ** 63 - 1, -(2 ** 63), 0)}
    assert len(set(draws.values())) == 4
    assert draws[0] == tuple(np.random.default_rng(0).integers(1000, size=8))


@pytest.mark.parametrize("kwargs", [{"time_per_game": "30"}, {"time_per_game": -1}, {"time_per_game": float("nan")},
                                    {"time_per_game": 0}, {"prep_time": -1}, {"prep_time": True}])
def test_a_player_policy_checks_its_times_when_made(kwargs):
    # "30" failed with a TypeError at the first step; -1 and nan gave the player 0 s silently.
    from pokersquares.errors import PokerSquaresError

    with pytest.raises(PokerSquaresError, match="PlayerPolicy's"):
        PlayerPolicy("greedy", **kwargs)


def test_a_player_policy_refuses_a_vector_environments_batch():
    from pokersquares.errors import PokerSquaresError

    vec = gym.vector.SyncVectorEnv([lambda: gym.make("PokerSquares-v0")] * 2)
    obs, info = vec.reset(seed=1)
    with pytest.raises(PokerSquaresError, match="batch"):
        PlayerPolicy("greedy", prep_time=0.0)(obs, info)


def test_a_policy_class_that_needs_arguments_is_refused_in_one_line():
    # PlayerPolicy needs a player: a bare TypeError, which the command line called the
    # PolicyPlayer's "bad parameters".
    from pokersquares.errors import PokerSquaresError

    with pytest.raises(PokerSquaresError, match="cannot be made with no arguments"):
        PolicyPlayer("pokersquares.envs.policies:PlayerPolicy")


def test_a_player_policy_warms_its_player_up_before_any_clock():
    # The harness warms a player up (its kernels compiled or loaded) before its clocks; a
    # PlayerPolicy left that to the first move, which took 0.6 to 0.75 s of a 1 s episode
    # (tiger:iterations=300 left 15 moves to its greedy fallback: 89 where its run scored 109).
    import random

    class Warmed:
        warmed = 0

        def warm_up(self):
            self.warmed += 1
            random.random()  # the player's own stream of the process-wide generators, not the caller's

        def set_point_system(self, point_system, budget_s):
            assert self.warmed == 1, "prepared before it was warmed up"

        def start_game(self):
            self.moves = 0

        def get_play(self, card, seconds_left):
            assert self.warmed == 1, "played before it was warmed up"
            self.moves += 1
            return divmod(self.moves - 1, 5)

    policy, env = PlayerPolicy(Warmed(), prep_time=0.0), PokerSquaresEnv(AMERICAN)
    state = random.getstate()
    for options in (None, {"point_system": "british"}):  # warmed up once, prepared twice
        obs, info = env.reset(seed=1, options=options)
        for _ in range(25):
            obs, _, done, _, info = env.step(policy(obs, info))
        assert done and policy.player.warmed == 1
    assert random.getstate() == state


def test_render_shows_the_lines_and_total_that_info_score_counts():
    # Grid.render scores a line with no card as a high card: under a system whose high card
    # is -3 a mid-game render said "Total: -25" while info["score"] said -19.
    from pokersquares.cards import card_name

    env = PokerSquaresEnv(NEG, render_mode="ansi")
    assert env.render().splitlines()[-1] == "Total: 0"  # before reset: no card, worth 0
    obs, info = env.reset(seed=4)
    for cell in (0, 1, 2, 6, 12, 18):
        obs, _, _, _, info = env.step(cell)
    lines = env.render().splitlines()
    assert lines[-1] == f"to place: {card_name(obs['card'])}"
    assert lines[-2] == f"Total: {info['score']}" == "Total: -19"
    assert lines[4].endswith("   0") and lines[5].split() == ["-3", "-3", "-3", "-3", "0"]
    for cell in np.flatnonzero(info["action_mask"]):
        env.step(int(cell))
    grid = Grid([int(c) for c in env.grid])  # the full grid: as the Java framework prints it
    assert env.render() == grid.render(NEG) and env.render().endswith(f"Total: {grid.score(NEG)}")


@pytest.mark.parametrize("system", [[0] * 9 + [1000], np.array([0] * 8 + [-500, 1000]), "0,0,0,0,0,0,0,0,-500,1000"])
def test_point_values_clamped_into_the_contests_range_are_said(system):
    # A reward of 1000 for a royal flush paid 127 without a word (the command line says it).
    with pytest.warns(UserWarning, match=r"clamped to \[-128, 127\].*1000 -> 127"):
        env = gym.make("PokerSquares-v0", point_system=system)
    assert env.unwrapped.point_system.points[9] == 127
    with pytest.warns(UserWarning, match="1000 -> 127"):
        env.reset(seed=1, options={"point_system": system})
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.reset(seed=1)  # the default system, clamped once and said once
        PokerSquaresEnv([-128] + [0] * 8 + [127]).reset(seed=1, options={"point_system": "british"})
