import json
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _vectors_path() -> Path:
    # The shared contest folder sits beside the repository (CI clones it there too);
    # a copy is kept in tests/data for clones without it.
    for p in (ROOT.parent / "shared" / "contest" / "java_vectors.json", ROOT / "tests" / "data" / "java_vectors.json"):
        if p.exists():
            return p
    raise FileNotFoundError("java_vectors.json not found")


@pytest.fixture(scope="session")
def java_vectors() -> dict:
    return json.loads(_vectors_path().read_text())


@pytest.fixture(scope="session")
def prepared_evaluators() -> dict:
    """Every evaluator, prepared once for the American system by fixed work, not time
    (these tests check what values mean and which moves they make, not strength):
    patterns learn 4 rounds of 4,000 + 2,000 games from the known utilities of complete
    hands (so few games never see a straight flush), NARL 20,000 games, one thread each."""
    from pokersquares.evaluators.narl import NarlEvaluator
    from pokersquares.evaluators.patterns import PatternEvaluator, learn_utilities
    from pokersquares.evaluators.possibility import PossibilityEvaluator
    from pokersquares.points import AMERICAN

    points = np.array(AMERICAN.points, dtype=np.int64)
    patterns = PatternEvaluator()
    patterns.points = points
    patterns.utilities, patterns.counts, patterns.report = learn_utilities(
        points, 1e9, 0, train_games=4000, eval_games=2000, max_rounds=4, known_complete=True)
    narl = NarlEvaluator(games=20000, threads=1)
    narl.prepare(points, 0.0, 0)
    possibility = PossibilityEvaluator()
    possibility.prepare(points, 1.0, 0)
    return {"patterns": patterns, "narl": narl, "possibility": possibility}
