from pokersquares.harness.warm_up import kernel_groups, warm_up_players


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
