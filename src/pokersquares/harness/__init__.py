"""The contest harness: the player protocol, the registry of named players,
contest-exact games with time limits and penalties, runs, tournaments and the
SQLite result store."""

from .player import BasePlayer, Player
from .registry import PlayerInfo, list_players, make_player, register_player

__all__ = ["BasePlayer", "Player", "PlayerInfo", "list_players", "make_player", "register_player"]
