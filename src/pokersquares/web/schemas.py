"""The bodies the web API accepts: strict types (``true`` is not a cell, ``"12"`` is not
a seed), no unknown fields, every number in its range."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from ..game import NUM_CELLS
from ..points import SPEC_HELP
from .agents import AGENT_NAME_MAX, AGENT_NAME_PATTERN
from .sessions import NAME_MAX, SEED_MAX, SEED_MIN

__all__ = ["NewGame", "Place", "Think", "Replay", "Cancel", "AgentName", "SEED_MESSAGE"]

AgentName = Field(..., min_length=1, max_length=AGENT_NAME_MAX, pattern=AGENT_NAME_PATTERN,
                  description="a registered agent's name")
SEED_MESSAGE = f"a deal seed is a whole number from {SEED_MIN} to {SEED_MAX}"


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class NewGame(_Body):
    system: str = Field("american", min_length=1, max_length=200, description=SPEC_HELP)
    seed: int | None = Field(None, ge=SEED_MIN, le=SEED_MAX, description="deal seed (random when absent)")
    moves: list[Annotated[int, Field(ge=0, le=NUM_CELLS - 1)]] = Field(
        default_factory=list, max_length=NUM_CELLS, description="cells already played (row*5+col), to rebuild a game")
    agent_played: bool = Field(False, description="an agent placed some of the moves (a watched game rebuilt): "
                                                  "the game is not recorded as a person's")
    name: str | None = Field(None, max_length=4 * NAME_MAX,
                             description=f"the person's name (printable, at most {NAME_MAX} characters), "
                                         "recorded with the finished game")


class Place(_Body):
    cell: int = Field(..., ge=0, le=NUM_CELLS - 1, description="cell index row*5+col")
    turn: int | None = Field(None, ge=0, le=NUM_CELLS, description="the turn the page shows")
    name: str | None = Field(None, max_length=4 * NAME_MAX,
                             description="the person's name as the page shows it now (typed after the deal, "
                                         "it is the one recorded with the finished game); empty: no name; absent: unchanged")


class Think(_Body):
    agent: str = AgentName
    seconds: float = Field(0.5, gt=0, le=60, allow_inf_nan=False,
                           description="thinking time, at most the server's limit")
    turn: int | None = Field(None, ge=0, le=NUM_CELLS)


class Replay(_Body):
    agent: str = AgentName


class Cancel(_Body):
    agent: str = AgentName
    system: str = Field(..., min_length=1, max_length=200, description="the point system's spec")
