"""Seeds for players' own randomness that do not give the deal away.

Game ``i`` of a run is dealt with seed ``seed + i``; were a player handed that number,
it could call ``deal(seed)`` and see every card to come. A player is handed instead
``player_seed(secret, purpose, seed)``: a keyed hash (HMAC-SHA256) of the deal seed
under the run's secret, which the result store keeps in the run's row (so the run is
reproducible from what it records, on any number of workers) and the player never
sees. Without the secret, finding the deal seed from a player seed means breaking
HMAC-SHA256.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from ..errors import InvalidSeedError

__all__ = ["new_secret", "player_seed", "PROCESS_SECRET"]

# For games played outside a recorded run (play_game called directly): a secret of this
# interpreter, inherited by the processes it forks.
PROCESS_SECRET = secrets.token_hex(16)


def new_secret() -> str:
    """A fresh run secret (32 hex digits)."""
    return secrets.token_hex(16)


def player_seed(secret: str | None, purpose: str, seed: int) -> int:
    """The seed a player gets for ``purpose`` (``"game"``: the game dealt by ``seed``;
    ``"prepare"``: the preparation of a run whose first deal is ``seed``): 31 bits of
    HMAC-SHA256 under ``secret`` (as small as deal seeds, so that players' own seed
    arithmetic, such as ``seed * 31 + move`` in int64 kernels, cannot overflow)."""
    from ..cards import check_seed
    if not isinstance(secret, str):
        raise InvalidSeedError(f"a run's secret is text (new_secret()), got {secret!r}")
    seed = check_seed(seed, "the deal's seed")  # not int(1.7), another deal's seed
    digest = hmac.new(secret.encode(), f"{purpose}:{int(seed)}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:4], "big") >> 1
