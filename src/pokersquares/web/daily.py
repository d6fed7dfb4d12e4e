"""The daily deal: the same deal and point system for everyone on a date (UTC), so that
players can compare their scores with each other's and with the agents'."""

from __future__ import annotations

import datetime as dt
import hashlib

__all__ = ["daily_deal"]

# The point systems the days go through: the two classic ones, then generated ones
# seeded by the date (the contest's own kinds of system).
_KINDS = ("american", "british", "ameritish", "random", "hypercorner")


def daily_deal(date: dt.date | None = None) -> dict:
    """The deal seed and point system spec of ``date`` (today in UTC by default)."""
    date = date or dt.datetime.now(dt.timezone.utc).date()
    digest = hashlib.sha256(f"pokersquares daily {date.isoformat()}".encode()).digest()
    seed = int.from_bytes(digest[:8], "big") % 1_000_000_000
    kind = _KINDS[date.toordinal() % len(_KINDS)]
    spec = kind if kind in ("american", "british") else f"{kind}:{int.from_bytes(digest[8:12], 'big') % 100_000}"
    return {"date": date.isoformat(), "seed": seed, "system": spec}
