import importlib
import sys

import pytest


def test_without_gymnasium_the_import_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "gymnasium", None)  # import gymnasium now fails as if absent
    for name in [m for m in sys.modules if m.startswith("pokersquares.envs")]:
        monkeypatch.delitem(sys.modules, name)
    with pytest.raises(ImportError, match=r"pip install 'pokersquares\[gym\]'"):
        importlib.import_module("pokersquares.envs")
