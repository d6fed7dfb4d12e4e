"""The cores a player's preparation keeps busy (harness.spec.prep_cores), which a Ray
preparation task reserves: more than a game's where the player learns on more threads
(Python threads calling kernels that release the GIL, which capping numba's threads
does not hold). No Ray needed here; tests/harness/test_ray_backend.py checks the task."""

from pokersquares.harness.spec import player_cores, prep_cores


def test_a_preparation_counts_the_threads_its_learners_run_on():
    # gettysburg and og play a game on one core and learn on two threads by default.
    assert [player_cores(s) for s in ("gettysburg", "og")] == [1, 1]
    assert [prep_cores(s) for s in ("gettysburg", "gettysburg:threads=1", "gettysburg:threads=3")] == [2, 1, 3]
    assert [prep_cores(s) for s in ("og", "og:learn_threads=1", "og:learn_threads=3")] == [2, 1, 3]
    # beemo's cores= is its search's; its learners are learn_threads.
    assert [prep_cores(s) for s in ("beemo", "beemo:cores=1", "beemo:cores=1,learn_threads=1",
                                    "beemo:learn_threads=3")] == [2, 2, 1, 3]
    # Players whose learners are their cores= (or threads=) are what a game uses.
    assert [prep_cores(s) for s in ("td", "td:threads=1", "champion:cores=1", "greedy")] == [2, 1, 1, 1]
    # hybrid: its evaluator's learners (narl, patterns and td on two threads), not its search's one core.
    assert [prep_cores(s) for s in ("hybrid", "hybrid:evaluator=patterns,search=greedy", "hybrid:evaluator=td",
                                    "hybrid:evaluator=possibility")] == [2, 2, 2, 1]


def test_a_preparation_asks_for_no_more_than_the_largest_machine_has():
    assert [prep_cores(s, most=2) for s in ("gettysburg:threads=3", "beemo:learn_threads=4", "og")] == [2, 2, 2]
    assert prep_cores("gettysburg", most=1) == 1 and prep_cores("greedy", most=4) == 1
