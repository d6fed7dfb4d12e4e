"""``pokersquares --version``: what a bug report or a published figure names."""

from importlib.metadata import version
from pathlib import Path

import pokersquares
from pokersquares.harness.registry import resolve_factory


def test_version_names_the_release_the_champion_and_what_it_runs_on(cli):
    code, out, err = cli("--version")
    assert code == 0 and err == "", err
    champion = resolve_factory("champion")[0].version
    assert out == (f"pokersquares {pokersquares.__version__} (champion version {champion}) at "
                   f"{Path(pokersquares.__file__).resolve().parent}; Python {__import__('platform').python_version()}, "
                   f"numpy {version('numpy')}, numba {version('numba')}\n")
    assert pokersquares.versions()["champion"] == str(champion)


def test_version_is_in_the_help_and_ends_the_command_before_any_other(cli):
    code, out, _ = cli("--help")
    assert code == 0 and "--version" in out and "Print the version" in out
    code, out, err = cli("--version", "run", "--games", "0")  # an eager option: nothing after it runs
    assert code == 0 and out.startswith("pokersquares ") and err == ""
    code, out, err = cli("run", "--version")  # the root's option only
    assert code == 2 and out == "" and err.strip().splitlines() == [
        "error: No such option: --version (Possible options: --json) (see pokersquares run --help)"]
