from pokersquares.harness.warm_up import kernel_groups, plan, shares, warm_up_players


def test_players_sharing_an_evaluator_compile_in_the_same_process():
    assert kernel_groups(["beemo", "gettysburg", "og", "random", "hybrid", "greedy"]) == [
        ["beemo", "og"], ["gettysburg", "hybrid"], ["random", "greedy"]]


def test_every_player_is_warmed_up_and_reported_once():
    seen = []
    warm_up_players(["random", "greedy", "og"], processes=2, on_ready=lambda s, k, n: seen.append((s, k, n)))
    assert sorted(s for s, _, _ in seen) == ["greedy", "og", "random"]
    assert [k for _, k, _ in seen] == [1, 2, 3] and {n for _, _, n in seen} == {3}


def test_players_sharing_a_search_compile_in_the_same_process():
    # hybrid (NARL under MCTS) shares NARL's kernels with gettysburg and MCTS's with tiger
    assert kernel_groups(["tiger", "gettysburg", "og", "hybrid"]) == [["tiger", "gettysburg", "hybrid"], ["og"]]


def test_a_search_without_kernels_of_its_own_joins_no_one():
    # og (patterns) and td (the TD evaluator) both play greedily on their evaluator's
    # kernels: nothing of the greedy search is compiled, so nothing binds them together
    # (joined, the champion's kernels waited behind BeeMo's in one process).
    assert kernel_groups(["og", "td", "gettysburg:search=greedy", "beemo"]) == [["og", "beemo"], ["td"],
                                                                                ["gettysburg:search=greedy"]]


def test_a_player_with_a_second_evaluator_joins_the_players_of_both():
    """The champion prepares BeeMo's patterns for small budgets (evaluator=auto): it
    compiles their kernels too, so it joins BeeMo's group (apart, two processes compiled
    them at once); with a TD setting it has no second evaluator and stays with td."""
    assert kernel_groups(["og", "td", "champion", "beemo"]) == [["og", "td", "champion", "beemo"]]
    assert kernel_groups(["og", "td", "champion:evaluator=td", "beemo"]) == [["og", "beemo"],
                                                                             ["td", "champion:evaluator=td"]]


def test_the_costliest_group_goes_to_the_least_loaded_process_and_cheap_groups_run_first():
    assert shares([["a"], ["b"], ["c"], ["d"]], 2, [10.0, 8.0, 3.0, 1.0]) == [["d", "a"], ["c", "b"]]
    assert shares([["a"], ["b"], ["c"]], 2) == [["a", "c"], ["b"]]  # without costs: in turn


def test_the_built_in_agents_split_into_two_balanced_processes():
    """The champion's kernels (the costliest, BeeMo's patterns among them) and
    GettysburgPlayer's and Tiger's go to different processes, and random and greedy, quick
    to compile, come first in the other."""
    agents = ["random", "greedy", "beemo", "og", "champion", "gettysburg", "hybrid", "td", "tiger"]
    parts = plan(agents, 2)
    assert sorted(sum(parts, [])) == sorted(agents)
    mine = next(p for p in parts if "champion" in p)
    theirs = next(p for p in parts if "champion" not in p)
    assert "beemo" in mine and "tiger" in theirs and "gettysburg" in theirs and theirs[:2] == ["random", "greedy"]
