"""First hints of a server started with ``--warm ''`` (nothing prepared at start), opened
45 s after it started: the seconds from each agent's first hint request to its answer.

Start the server yourself on a cold cache, then run this with its port::

    NUMBA_CACHE_DIR=$(mktemp -d) pokersquares serve --warm '' --port 8770 --db /tmp/srv.sqlite &
    python benchmarks/web_first_hint_unwarmed.py 8770

Prints JSON: ``{"first_hint_s": {"gettysburg": ..., "beemo": ...}}``.
"""

from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.request


def post(base: str, path: str, data: dict) -> tuple[int, bytes]:
    request = urllib.request.Request(base + path, data=json.dumps(data).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=120) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def main(port: int, agents: tuple[str, ...] = ("gettysburg", "beemo"), opened_after_s: float = 45.0) -> dict:
    base = f"http://127.0.0.1:{port}"
    time.sleep(opened_after_s)  # the user opens the page a while after starting the server
    _, body = post(base, "/api/games", {"seed": 1, "system": "american"})
    game = json.loads(body)["id"]
    out = {}
    for agent in agents:
        start = time.monotonic()
        while post(base, f"/api/games/{game}/hint", {"agent": agent})[0] != 200:
            time.sleep(0.3)  # 202 while it compiles or learns, as the page polls
        out[agent] = round(time.monotonic() - start, 1)
    return {"first_hint_s": out}


if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]))))
