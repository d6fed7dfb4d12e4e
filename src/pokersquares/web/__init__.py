"""The local web app: play Poker Squares, ask an agent for advice, watch agents play,
and browse the result store. ``create_app()`` builds it; ``pokersquares serve`` runs it.

Needs the ``web`` extra (FastAPI, uvicorn); importing this package without it fails
with an ImportError that says so.
"""

try:
    import fastapi  # noqa: F401
except ImportError as e:  # pragma: no cover - depends on the installation
    raise ImportError("the web app needs the 'web' extra: pip install 'pokersquares[web]'") from e

from .app import create_app

__all__ = ["create_app"]
