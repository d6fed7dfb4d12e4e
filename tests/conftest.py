import json
from pathlib import Path

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
