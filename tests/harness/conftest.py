import sys
from pathlib import Path

# fault_players is imported by module path in worker processes (forked, so they share sys.path).
sys.path.insert(0, str(Path(__file__).parent))
