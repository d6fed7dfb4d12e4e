"""Steps a second of the Gymnasium environment, single and vectorized, as JSON.

    python benchmarks/env_steps.py [--episodes 400] [--steps 10000] [--envs 2,4]

Random masked rollouts (a uniformly random legal cell each step, from
``info["action_mask"]``): ``--episodes`` seeded episodes through ``gym.make`` and through
the raw ``PokerSquaresEnv``, then ``--steps`` steps of ``gym.make_vec`` with each count
of ``--envs``, sync and async (the default context). One step is cheap beside the
message an async vector environment sends between processes, so sync is the faster.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def _single(make, episodes: int) -> float:
    env, rng, steps = make(), np.random.default_rng(0), 0
    start = time.perf_counter()
    for episode in range(episodes):
        _, info = env.reset(seed=episode)
        done = False
        while not done:
            _, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            steps += 1
    env.close()
    return steps / (time.perf_counter() - start)


def _vector(mode: str, n: int, total: int) -> float:
    import gymnasium as gym

    env, rng, steps = gym.make_vec("PokerSquares-v0", num_envs=n, vectorization_mode=mode), np.random.default_rng(0), 0
    try:
        _, info = env.reset(seed=0)
        start = time.perf_counter()
        while steps < total:
            actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in info["action_mask"]])
            _, _, _, _, info = env.step(actions)
            steps += n
        return steps / (time.perf_counter() - start)
    finally:
        env.close()


def _counts(text: str) -> list[int]:
    try:
        counts = [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--envs takes counts separated by commas, such as 2,4; got {text!r}") from None
    if not counts or any(not 1 <= n <= 64 for n in counts):
        raise argparse.ArgumentTypeError(f"each count of --envs is 1 to 64, got {text!r}")
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=400, choices=range(1, 100_001), metavar="1..100000")
    parser.add_argument("--steps", type=int, default=10_000, choices=range(1, 10_000_001), metavar="1..10000000")
    parser.add_argument("--envs", type=_counts, default=[2, 4])
    args = parser.parse_args()
    import gymnasium as gym

    from pokersquares.envs import PokerSquaresEnv  # registers PokerSquares-v0

    out = {"single_gym_make": round(_single(lambda: gym.make("PokerSquares-v0"), args.episodes)),
           "single_raw_env": round(_single(PokerSquaresEnv, args.episodes))}
    for mode in ("sync", "async"):
        for n in args.envs:
            out[f"{mode}_{n}"] = round(_vector(mode, n, args.steps))
    print(json.dumps({"steps_per_s": out, "episodes": args.episodes, "vector_steps": args.steps}))


if __name__ == "__main__":
    main()
