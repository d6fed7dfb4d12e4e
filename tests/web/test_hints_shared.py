"""A class asking one prepared agent for hints at once: each request thinks a share of
the seconds asked while others wait behind it, so every hint comes in turn."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from pokersquares.game import EMPTY  # noqa: E402
from pokersquares.harness.player import BasePlayer  # noqa: E402
from pokersquares.web import create_app  # noqa: E402
from pokersquares.web.agents import SHARED_THINK_MIN_S, AgentSpec  # noqa: E402


class _ThinksItsTime(BasePlayer):
    """Thinks exactly the seconds it is given; remembers them."""

    name = "thinker"
    given: list[float] = []

    def advice(self, grid, card, seconds):
        _ThinksItsTime.given.append(seconds)
        time.sleep(seconds)
        empty = np.flatnonzero(grid == EMPTY)
        values = np.where(grid == EMPTY, 0.0, -np.inf)
        return int(empty[0]), values

    def choose(self, grid, card, seconds_left):
        return int(np.flatnonzero(grid == EMPTY)[0])


def test_hints_asked_at_once_share_the_seconds_and_all_come(tmp_path):
    _ThinksItsTime.given = []
    app = create_app(agents={"thinker": AgentSpec(_ThinksItsTime, "thinks its time")}, prep_s=0.1, think_s=2.0)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        games = [client.post("/api/games", json={"system": "american", "seed": k}).json()["id"] for k in range(5)]
        asked = 1.0
        answers: dict[int, object] = {}

        def hint(k):
            for _ in range(50):  # a 202 while the agent prepares, as the page asks again
                r = client.post(f"/api/games/{games[k]}/hint", json={"agent": "thinker", "seconds": asked},
                                headers={"X-Client": f"student{k}"})
                if r.status_code != 202:
                    break
                time.sleep(0.05)
            answers[k] = r

        hint(0)  # prepared; the next five come while the first of them thinks
        _ThinksItsTime.given = []
        first = threading.Thread(target=hint, args=(0,))
        first.start()
        while not _ThinksItsTime.given:
            time.sleep(0.01)
        rest = [threading.Thread(target=hint, args=(k,)) for k in range(1, 5)]
        start = time.monotonic()
        for t in rest:
            t.start()
        for t in [first, *rest]:
            t.join(30)
        elapsed = time.monotonic() - start
    codes = {k: r.status_code for k, r in answers.items()}
    assert codes == {k: 200 for k in range(5)}, {k: r.text for k, r in answers.items() if r.status_code != 200}
    replies = [r.json() for r in answers.values()]
    assert all(reply["asked"] == asked for reply in replies)
    shared = [reply for reply in replies if reply["others_waiting"]]
    assert shared and max(reply["others_waiting"] for reply in shared) >= 2
    assert _ThinksItsTime.given[0] == asked  # the first: nobody waited when it began
    for reply in replies:  # the seconds given, and a little more
        if reply["others_waiting"]:
            assert SHARED_THINK_MIN_S <= reply["seconds"] < 0.5 * asked
        else:
            assert asked <= reply["seconds"] < asked + 0.5
    # The burst: every answer within a request's bound (3 x its seconds + 1), where before
    # the shares each waited for whole seconds asked and most were refused.
    assert elapsed < 3 * asked + 1
