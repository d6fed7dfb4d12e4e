"""Processes as Linux's /proc shows them, for the tests that check none outlives a run."""

import os


def living_processes() -> dict[int, list[str]]:
    """Every living process: its /proc stat fields after the name (state, ppid, pgrp,
    session, ...); zombies are left out (they have ended and only wait to be reaped)."""
    out = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            if fields[0] != "Z":
                out[int(entry)] = fields
    return out
