"""``pokersquares serve``: it starts a server that answers, and refuses bad options."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import warnings

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from test_signals_cli import as_in_a_terminal  # noqa: E402 - a terminal's signals, whatever the suite inherited


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_starts_on_localhost_and_answers(tmp_path):
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "pokersquares", "serve", "--port", str(port),
                             "--think-time", "0.5", "--db", str(tmp_path / "r.sqlite"), "--warm", ""],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=as_in_a_terminal)
    try:
        deadline = time.monotonic() + 180  # a cold numba cache compiles the players on import
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/config", timeout=2) as r:
                    config = json.load(r)
                if config["agents_loading"]:  # the agents load after the server answers
                    assert time.monotonic() < deadline, "serve did not list its agents within 180 s"
                    time.sleep(0.3)
                    continue
                break
            except OSError:
                assert proc.poll() is None, proc.stderr.read()
                assert time.monotonic() < deadline, "serve did not list its agents within 180 s"
                time.sleep(0.3)
        assert config["limits"]["think_s"] == 0.5
        assert "greedy" in [a["name"] for a in config["agents"]]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/results", timeout=5) as r:
            assert json.load(r)["available"] is False
        proc.send_signal(signal.SIGHUP)  # a closed terminal: the server shuts down as on SIGTERM
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert f"http://127.0.0.1:{port}/" in out
    assert "Traceback" not in err  # the hang-up was raised inside uvicorn's event loop
    # Said as every command says it (uvicorn.run swallowed it: exit 0, no word).
    assert proc.returncode == 129
    assert err.rstrip().splitlines()[-1] == "hung up (the server stopped; finished games are recorded in --db)"


@pytest.mark.parametrize("signum, code, word", [(signal.SIGTERM, 143, "terminated"), (signal.SIGINT, 130, "interrupted")])
def test_serve_stopped_while_its_agents_learn_says_so_in_one_line(tmp_path, signum, code, word):
    """Stopped while the warm-up's learners run: one line and the signal's exit code; no
    agent reported FAILED because the stopping interpreter refused its learner's work."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "pokersquares", "serve", "--port", str(port), "--prep-time", "4",
                             "--db", str(tmp_path / "r.sqlite"), "--warm", "american", "--no-record"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=as_in_a_terminal)
    lines = []
    try:
        deadline = time.monotonic() + 180
        while not any("kernels of tiger ready" in line for line in lines):  # og, beemo, gettysburg learning
            assert time.monotonic() < deadline and proc.poll() is None, lines
            lines.append(proc.stderr.readline())
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, err
    assert "FAILED" not in err and "Traceback" not in err, err
    assert err.rstrip().splitlines()[-1] == f"{word} (the server stopped)"


@pytest.mark.parametrize("args", [["--port", "-1"], ["--port", "70000"], ["--think-time", "0"], ["--prep-time", "-1"]])
def test_serve_refuses_bad_options(args, cli):
    code, _, err = cli("serve", *args)
    assert code == 2
    assert "Invalid value" in err


def test_serve_warms_the_agents_and_says_so(tmp_path):
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "pokersquares", "serve", "--port", str(port), "--prep-time", "0",
                             "--db", str(tmp_path / "r.sqlite"), "--warm", "british"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    try:
        deadline = time.monotonic() + 180
        while not any("random on British: ready" in line for line in lines):
            assert time.monotonic() < deadline and proc.poll() is None, lines
            lines.append(proc.stderr.readline())
    finally:
        proc.terminate()
        proc.wait(10)
    assert any("preparing them for British" in line for line in lines)
    assert f"http://127.0.0.1:{port}/" in proc.stdout.read()


def test_serve_refuses_a_bad_warm_system(cli):
    code, _, err = cli("serve", "--warm", "american;bogus")
    assert code == 2 and "--warm" in err and "bogus" in err


@pytest.mark.parametrize("args, says", [
    (["--java-player", "FirstEmptyPlayer"], "needs --classpath"),
    (["--java-player", "FirstEmptyPlayer", "--classpath", "/no/such/dir"], "does not exist"),
    (["--java-player", "NoSuchPlayer", "--classpath", "{classes}"], "NoSuchPlayer"),
    (["--java-player", "NotAPlayer", "--classpath", "{classes}"], "NotAPlayer"),
    (["--java-player", "not a class", "--classpath", "{classes}"], "not a Java class name"),
])
def test_serve_refuses_a_bad_java_player_in_one_line_before_it_starts(java_classes, monkeypatch, args, says, cli):
    from pokersquares.players import java

    monkeypatch.delenv(java.CLASSPATH_ENV, raising=False)
    args = [a.replace("{classes}", str(java_classes)) for a in args]
    code, out, err = cli("serve", "--port", str(_free_port()), *args)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and says in lines[0] and "Traceback" not in err
    assert "Poker Squares at" not in out  # never started


@pytest.mark.parametrize("value, says", [
    ("*.lan", "'*' stands only alone"), ("http://myhost.lan", "without a scheme"),
    ("myhost.lan:8000", "without a port"),
    ("myhost.lan:80x", "without a port"), ("myhost.lan/page", "without a path"), ("", "not an empty value"),
    ("my host", "no spaces"), ("1.2.3", "not a host name"),
])
def test_serve_refuses_a_malformed_allow_host_in_one_line_before_it_starts(value, says, cli, served_apps):
    served = served_apps
    code, out, err = cli("serve", "--port", str(_free_port()), "--warm", "", "--no-record",
                         "--allow-host", "myhost.lan", "--allow-host", value)
    assert code == 2 and not served, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "--allow-host" in lines[0] and repr(value) in lines[0] and says in lines[0], err
    assert "Traceback" not in err and "Poker Squares at" not in out  # never started


def _served_app(cli, served_apps, *args):
    """What ``serve`` would run (a stand-in server): (the app, stderr)."""
    served = served_apps
    served.clear()
    code, out, err = cli("serve", "--port", str(_free_port()), "--warm", "", "--no-record", *args)
    assert code == 0 and len(served) == 1, err
    return served[0], err


def _status(app, host):
    from fastapi.testclient import TestClient

    return TestClient(app).get("/api/docs", headers={"Host": host}).status_code


def test_serve_on_all_interfaces_with_allow_host_still_answers_to_its_addresses(cli, served_apps):
    """--host 0.0.0.0 answers to any name; naming one with --allow-host keeps the server
    answering by its addresses (a phone on the LAN at http://192.168.1.20:8000), adds the
    name, and refuses other names (DNS rebinding)."""
    app, _ = _served_app(cli, served_apps, "--host", "0.0.0.0")
    assert {_status(app, h) for h in ["192.168.1.20:8000", "myhost.lan:8000", "evil.example"]} == {200}
    app, err = _served_app(cli, served_apps, "--host", "0.0.0.0", "--allow-host", "myhost.lan")
    for host in ["192.168.1.20:8000", "[fe80::1]:8000", "127.0.0.1:8000", "localhost:8000", "myhost.lan:8000"]:
        assert _status(app, host) == 200, host
    assert _status(app, "evil.example:8000") == _status(app, "192.168.1.20.evil.example") == 421
    assert "--allow-host '*'" not in err


def test_serve_allow_host_star_answers_any_name_and_warns(cli, served_apps):
    app, err = _served_app(cli, served_apps, "--allow-host", "*")
    assert _status(app, "evil.example") == 200
    assert "warning: --allow-host '*'" in err and "DNS rebinding" in err
    app, err = _served_app(cli, served_apps, "--allow-host", "myhost.lan")
    assert _status(app, "myhost.lan") == 200 and _status(app, "evil.example") == 421
    assert "warning" not in err


def test_serve_warms_the_twelve_contest_systems_for_contest(cli, monkeypatch, served_apps):
    # 'contest' was refused: "'contest' names twelve systems; use it where a list is accepted".
    import pokersquares.web as web
    from pokersquares.points import contest_specs

    warmed = []
    made = web.create_app
    monkeypatch.setattr(web, "create_app", lambda *a, **kw: warmed.append(kw["warm"]) or made(*a, **{**kw, "warm": []}))
    code, out, err = cli("serve", "--port", str(_free_port()), "--warm", "contest; random:7", "--no-record")
    assert code == 0, err
    assert warmed == [[*contest_specs(), "random:7"]] and len(warmed[0]) == 13


def test_serve_refuses_a_classpath_without_a_java_player(cli, tmp_path):
    code, out, err = cli("serve", "--classpath", str(tmp_path), "--warm", "", "--no-record")
    assert (code, out) == (2, "") and err.strip() == "error: --classpath goes with --java-player (the Java players' classes)"


def test_serve_says_when_the_server_did_not_start(cli, monkeypatch):
    """uvicorn returns without starting (the port taken since it was checked): one line
    and exit 1, not exit 0 after "Poker Squares at ..." (uvicorn.run exited 3 unsaid)."""
    import uvicorn

    monkeypatch.setattr(uvicorn.Server, "run", lambda server, sockets=None: None)
    port = _free_port()
    code, out, err = cli("serve", "--port", str(port), "--warm", "", "--no-record")
    assert code == 1, err
    assert err.strip().splitlines()[-1] == f"error: the server did not start on 127.0.0.1:{port}"


def test_serve_says_a_port_in_use_or_a_host_it_cannot_listen_on_in_one_line_before_it_starts(cli, served_apps):
    """A port another program listens on, or a host name that resolves to nothing, is
    said in one line naming the option (exit 2) before the address is printed and
    before any server is made to run."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out, err = cli("serve", "--port", str(port), "--warm", "", "--no-record")
    assert (code, out, served_apps) == (2, "", []), err
    assert err.strip().splitlines() == [f"error: cannot listen on 127.0.0.1:{port} (--host 127.0.0.1, --port {port}): "
                                        "Address already in use"]
    code, out, err = cli("serve", "--host", "no.such.host.invalid", "--port", str(_free_port()), "--warm", "",
                         "--no-record")
    assert (code, out, served_apps) == (2, "", []), err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "error: --host 'no.such.host.invalid': not an address this machine can listen on"), err


def test_serve_checks_its_result_store_before_it_starts_and_records_only_when_asked(cli, served_apps, tmp_path):
    """A --db it could not create games in is said in one line before the server starts
    (not when a person's first game ends); --no-record writes nothing, so needs no
    folder, and the page is told games are not recorded."""
    from fastapi.testclient import TestClient

    nowhere = tmp_path / "no-such-folder" / "r.sqlite"
    code, out, err = cli("serve", "--port", str(_free_port()), "--warm", "", "--db", str(nowhere))
    assert (code, out, served_apps) == (2, "", []), err
    assert err.strip().splitlines() == [f"error: cannot create the result store {nowhere} (--db): "
                                        f"folder {nowhere.parent} does not exist"]
    for args, records in [(["--db", str(nowhere), "--no-record"], False), (["--db", str(tmp_path / "r.sqlite")], True)]:
        served_apps.clear()
        code, out, err = cli("serve", "--port", str(_free_port()), "--warm", "", *args)
        assert code == 0 and len(served_apps) == 1, err
        config = TestClient(served_apps[0], base_url="http://127.0.0.1").get("/api/config").json()
        assert config["records_games"] is records and config["results"] is True


def test_serve_prints_its_address_and_warns_only_when_others_can_reach_it(cli, served_apps):
    """The printed address opens the app: an IPv6 address in brackets. Bound to the
    loopback (127.0.0.1, ::1) nothing is said; bound to every interface, a warning that
    anyone who reaches the machine can use the app."""
    for host, url in [("127.0.0.1", "http://127.0.0.1:{}/"), ("::1", "http://[::1]:{}/")]:
        port = _free_port()
        code, out, err = cli("serve", "--host", host, "--port", str(port), "--warm", "", "--no-record")
        assert code == 0 and out.startswith(f"Poker Squares at {url.format(port)} "), (out, err)
        assert "warning" not in err, err
    code, out, err = cli("serve", "--host", "0.0.0.0", "--port", str(_free_port()), "--warm", "", "--no-record")
    assert code == 0 and "warning: serving on 0.0.0.0: anyone who can reach this address can use the app" in err, err


def test_serve_on_port_0_serves_on_a_free_port_and_prints_its_url(tmp_path):
    """``--port 0`` (any free port, as scripts and test harnesses ask) was refused; the
    first line of output is the URL the server answers at, with the port it took. A
    script may connect the moment it reads it: the port listened only once the server
    ran, and such a connection was refused (7 times over 0.04 s)."""
    proc = subprocess.Popen([sys.executable, "-m", "pokersquares", "serve", "--port", "0", "--warm", "", "--no-record"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        match = re.fullmatch(r"Poker Squares at http://127\.0\.0\.1:(\d+)/  \(Ctrl\+C to stop\)\n", line)
        assert match and int(match[1]) > 0, (line, proc.stderr.read() if proc.poll() is not None else "")
        socket.create_connection(("127.0.0.1", int(match[1])), timeout=10).close()
        _wait_served(proc, int(match[1]))
    finally:
        proc.terminate()
        proc.communicate(timeout=60)


def test_serve_on_port_0_takes_one_port_free_on_every_address_of_its_host(cli, monkeypatch):
    """A name with two addresses is served on one port, the one the URL says: port 0
    bound on each address gave each its own. The port first found free on one address
    but taken on the other is passed over. Each listens before the URL is printed. The
    sockets are closed once the server is done, whether or not it served on them."""
    import uvicorn

    two = [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, 0)) for address in ("127.0.0.1", "127.0.0.2")]
    resolve = socket.getaddrinfo
    monkeypatch.setattr(socket, "getaddrinfo", lambda host, *a, **k: two if host == "localhost" else resolve(host, *a, **k))
    taken = socket.socket()
    taken.bind(("127.0.0.2", 0))
    taken.listen()
    first = []

    class FirstPortTaken(socket.socket):  # the first port "found" is one 127.0.0.2 has taken
        def bind(self, address):
            if address == ("127.0.0.1", 0) and not first:
                address = ("127.0.0.1", taken.getsockname()[1])
                first.append(address)
            super().bind(address)

    monkeypatch.setattr(socket, "socket", FirstPortTaken)
    served = []

    def run(server, sockets=None) -> None:  # each socket takes a connection before any server accepts one
        for sock in sockets:
            socket.create_connection(sock.getsockname(), timeout=5).close()
        served.append([sock.getsockname() for sock in sockets])
        server.started = True

    monkeypatch.setattr(uvicorn.Server, "run", run)
    with taken, warnings.catch_warnings():
        warnings.simplefilter("always", ResourceWarning)  # a socket left to the collector says so
        code, out, err = cli("serve", "--host", "localhost", "--port", "0", "--warm", "", "--no-record")
    assert code == 0 and first and "unclosed" not in err, err
    [[(_, port), second]] = served
    assert second == ("127.0.0.2", port) and port != first[0][1]
    assert out.startswith(f"Poker Squares at http://localhost:{port}/ ")


def test_serve_help_says_how_long_a_request_may_take_to_arrive(cli):
    from pokersquares.cli.web import WRITE_S
    from pokersquares.web.guards import READ_S

    code, out, _ = cli("serve", "--help")
    said = " ".join(out.split())
    assert code == 0 and f"A client has {READ_S:g} s to send a request's headers, and {READ_S:g} s more" in said
    assert f"One that takes no byte of an answer for {WRITE_S:g} s is cut off." in said


def _wait_served(proc: subprocess.Popen, port: int, within_s: float = 180) -> None:
    """Until the server of ``proc`` answers on ``port`` (a cold cache compiles first)."""
    deadline = time.monotonic() + within_s
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/config", timeout=2).close()
            return
        except OSError:
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
            time.sleep(0.3)


def test_serve_started_with_ctrl_c_ignored_keeps_it_ignored(tmp_path):
    """Started in a script's background (Ctrl-C ignored, as ``run`` keeps it): Ctrl-C to
    the group leaves the server serving (uvicorn took SIGINT over and shut down, exit 0
    and no word); SIGTERM still stops it."""
    def ctrl_c_ignored() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "pokersquares", "serve", "--port", str(port), "--warm", "",
                             "--db", str(tmp_path / "r.sqlite"), "--no-record"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=ctrl_c_ignored)
    try:
        _wait_served(proc, port)
        proc.send_signal(signal.SIGINT)
        time.sleep(1.5)
        assert proc.poll() is None  # still serving
        urllib.request.urlopen(f"http://127.0.0.1:{port}/api/config", timeout=5).close()
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143 and err.rstrip().splitlines()[-1] == "terminated (the server stopped)", err


def test_serve_stopped_with_a_game_its_store_could_not_take_says_so_in_its_last_line(tmp_path):
    """A person's game finished while another process held the store's write lock, and
    still held as the server stops: the game is lost, and the last line said "finished
    games are recorded in --db". It says how many were not, after the line that says why."""
    import sqlite3

    port, db = _free_port(), tmp_path / "r.sqlite"
    # As the console script runs it, with the wait for another process's write lock cut
    # from 2 s to 0.2 s: it runs out on each game and when the server stops.
    serve = ("import sys\n"
             "import pokersquares.web.results as results\n"
             "results.RECORD_WAIT_S = 0.2\n"
             "from pokersquares.entry import main\n"
             "sys.argv = ['pokersquares', *sys.argv[1:]]\n"
             "main()\n")
    proc = subprocess.Popen([sys.executable, "-c", serve, "serve", "--port", str(port), "--warm", "", "--db", str(db)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=as_in_a_terminal)

    def post(path, body):
        request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as r:
            return json.load(r)

    def finish(seed):
        game = post("/api/games", {"system": "american", "seed": seed})
        for cell in range(25):
            game = post(f"/api/games/{game['id']}/place", {"cell": cell, "turn": cell})
        return game

    try:
        _wait_served(proc, port)
        assert finish(1)["recorded"] is True
        lock = sqlite3.connect(db, isolation_level=None)
        lock.execute("BEGIN IMMEDIATE")
        try:
            assert [finish(seed)["recorded"] for seed in (2, 3)] == [False, False]
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=60)
        finally:
            lock.execute("ROLLBACK")
            lock.close()
    finally:
        if proc.poll() is None:
            proc.kill()
    lines = err.rstrip().splitlines()
    assert proc.returncode == 143 and "Traceback" not in err, err
    assert lines[-1] == "terminated (the server stopped; 2 finished games could not be recorded in --db, as said above)"
    assert lines[-3].startswith(f"2 finished browser games could not be recorded in {db} as the server stopped: "
                                "the result store is busy: "), err
