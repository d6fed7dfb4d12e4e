"""Numba compile (first call) time of the core kernels, as JSON. Run it twice: the first run
after deleting src/pokersquares/kernels/__pycache__/core*.nb* compiles, the second loads the cache."""
import time, json
t0 = time.perf_counter()
import numpy as np
from pokersquares.kernels import random_games, classify_batch, score_grid
t1 = time.perf_counter()
pts = np.array([0, 2, 5, 10, 15, 20, 25, 50, 75, 100], dtype=np.int64)
random_games(10, 1, pts)
t2 = time.perf_counter()
classify_batch(np.zeros((1, 5), dtype=np.int8))
t3 = time.perf_counter()
print(json.dumps({"import_s": round(t1 - t0, 3), "random_games_first_call_s": round(t2 - t1, 3), "classify_batch_first_call_s": round(t3 - t2, 3)}))
