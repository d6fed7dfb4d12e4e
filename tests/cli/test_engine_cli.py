import json
import subprocess
import sys

import pytest


def run(*args):
    return subprocess.run([sys.executable, "-m", "pokersquares", *args], capture_output=True, text=True)


def test_deal_json(java_vectors):
    r = run("deal", "--seed", "42", "--json")  # once through a new interpreter, as a user runs it
    assert r.returncode == 0 and json.loads(r.stdout) == java_vectors["deals"]["42"]


def test_system_and_classify(cli):
    code, out, _ = cli("system", "british", "--json")
    assert code == 0 and json.loads(out) == {"name": "British", "points": [0, 1, 3, 6, 12, 5, 10, 16, 30, 30]}
    code, out, _ = cli("classify", "10s", "js", "qs", "ks", "as", "--json")
    assert code == 0 and json.loads(out) == {"hand": "royal flush", "id": 9}


def test_system_prints_an_editions_twelve_for_its_organiser_to_publish(cli):
    from pokersquares.points import contest_systems

    code, out, err = cli("system", "contest:2027", "--json")
    assert code == 0, err
    assert json.loads(out) == [s.to_json() for s in contest_systems(2027)]
    code, out, err = cli("system", "contest")
    tables = out.strip().split("\n\n")
    assert code == 0 and [t.splitlines()[0] for t in tables] == [s.name for s in contest_systems()]
    assert tables[3].splitlines()[1:] == [f"  {i}  {n:<16} {p:5d}" for i, n, p in contest_systems()[3].table()]
    code, out, _ = cli("system", "british")
    assert code == 0 and out.splitlines()[0] == "British"  # one system: one table, as before


@pytest.mark.parametrize("args", [
    ("system", "contest:abc"),
    ("classify", "AS", "AS", "2C", "3C", "4C"),
    ("classify", "AS", "2C"),
    ("classify", "XX", "2C", "3C", "4C", "5C"),
    ("system", "pony"),
    ("system", "1,2,3"),
    ("deal", "--seed", "abc"),
])
def test_bad_input_is_one_line_and_nonzero(args, cli):
    code, _, err = cli(*args)
    assert code != 0
    assert "Traceback" not in err
    assert err.strip() and err.count("\n") == 1, err


def test_bench_json_has_the_figures():
    r = run("bench", "--json", "--repeats", "3", "--scale", "0.01")
    data = json.loads(r.stdout)
    # Measured at this size on the project's machine: 3.36 M random games/s and 60.9 M
    # classifications/s on one core. A kernel that fell back to Python (no numba) runs
    # some hundred times slower; a machine busy enough to lose 30x still passes. Each
    # figure is the median of three: at this size one repeat lasts milliseconds, and one
    # stall on a loaded machine took NARL's single repeat from 23,000 games/s to 629.
    assert data["random_games_per_s"] > 100_000 and data["hand_classifications_per_s"] > 2_000_000
    assert data["narl_learning_games_per_s"] > 1_000 and data["tiger_iterations_per_s"] > 2_000


@pytest.mark.parametrize("option", [("--scale", "0.001"), ("--repeats", "1")])
def test_bench_strength_refuses_the_throughputs_options_it_would_ignore(option, cli, tmp_path, monkeypatch):
    # --strength plays fixed work per agent (minutes): a --scale or --repeats asked for a
    # shorter run is said at once, not ignored.
    import pokersquares.strength as strength

    def measured(*args, **kwargs):
        raise AssertionError("the strength run started")

    monkeypatch.setattr(strength, "run_strength", measured)
    expected = tmp_path / "expected.json"
    expected.write_text("{}")
    code, out, err = cli("bench", "--strength", "--only", "og", "--expected", expected, *option)
    assert code == 2 and out == "" and option[0] in err and err.count("\n") == 1, err


@pytest.mark.parametrize("figures", ['{"og": {"mean": NaN, "se": 1}}', '{"og": {"mean": 1e999, "se": 1}}',
                                     '{"og": {"mean": 100, "se": Infinity}}', '{"og": {"mean": 100, "se": -1}}',
                                     '{"og": {"mean": 1%s, "se": 1}}' % ("0" * 400)],
                         ids=["nan-mean", "inf-mean", "inf-se", "negative-se", "400-digit-mean"])
def test_bench_strength_refuses_expected_figures_that_are_not_finite(figures, cli, tmp_path, monkeypatch):
    """A NaN expected mean passed every comparison ("every figure within 2 standard
    errors"), and --json printed NaN back, which no JSON reader takes; a mean of 400
    digits overflowed the comparison (an internal error, after the run)."""
    import pokersquares.strength as strength

    def measured(*args, **kwargs):
        raise AssertionError("the strength run started")

    monkeypatch.setattr(strength, "run_strength", measured)
    expected = tmp_path / "expected.json"
    expected.write_text(figures)
    code, out, err = cli("bench", "--strength", "--only", "og", "--expected", expected, "--json")
    assert code == 2 and out == "" and err.startswith("error: --expected") and err.count("\n") == 1, err
    assert "og" in err


def test_bench_strength_update_replaces_the_measured_figures_keeps_the_others_and_warns_of_a_fall(
        cli, tmp_path, monkeypatch):
    import pokersquares.strength as strength

    monkeypatch.setattr(strength, "run_strength", lambda only, progress=None: {"og": {"mean": 110.0, "se": 0.8}})
    expected = tmp_path / "expected.json"
    expected.write_text(json.dumps({"og": {"mean": 115.0, "se": 0.8}, "tiger": {"mean": 98.0, "se": 3.5}}))
    code, out, err = cli("bench", "--strength", "--only", "og", "--expected", expected, "--update")
    assert code == 0, err
    assert json.loads(expected.read_text()) == {"og": {"mean": 110.0, "se": 0.8}, "tiger": {"mean": 98.0, "se": 3.5}}
    assert err.startswith("warning: og: 110.00 is 5.00 below its expected 115.00") and err.count("\n") == 1, err
    assert "every figure within" not in out
    code, out, err = cli("bench", "--strength", "--only", "og", "--expected", expected)  # now the expectation
    assert code == 0 and err == "" and out.strip() == f"every figure within 2 standard errors of {expected} or above it"


def test_bench_expected_without_strength_is_one_line_before_any_benchmark(cli, tmp_path, monkeypatch):
    import pokersquares.bench

    def ran(*args, **kwargs):
        raise AssertionError("a benchmark ran")

    monkeypatch.setattr(pokersquares.bench, "run_benchmarks", ran)
    code, out, err = cli("bench", "--expected", tmp_path / "expected.json", "--only", "random_games_per_s")
    assert code != 0 and out == "" and err == "error: --expected goes with --strength (the expected strength figures)\n"


def test_system_help_names_every_reading_of_the_contest_it_takes(cli):
    """`system` prints 'contest:shared' and 'contest:shared:SEED' as it prints 'contest';
    its help named 'contest' and 'contest:SEED' alone."""
    code, out, err = cli("system", "--help")
    assert code == 0, err
    text = " ".join(out.split())
    for reading in ("'contest'", "'contest:SEED'", "'contest:shared'", "'contest:shared:SEED'"):
        assert reading in text, reading
    for spec in ("contest:shared", "contest:shared:2027"):
        code, out, err = cli("system", spec, "--json")
        assert code == 0 and len(json.loads(out)) == 12, err
