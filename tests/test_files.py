"""files.replacing and write_atomically: a write interrupted part way leaves the old file
whole and nothing beside it; a finished one replaces it with the target's permissions."""

import os

import pytest

from pokersquares.files import current_umask, replacing, write_atomically


def test_a_finished_write_replaces_the_file_and_keeps_its_permissions(tmp_path):
    target = tmp_path / "table.npz"
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    write_atomically(target, "new")
    assert target.read_text() == "new" and (target.stat().st_mode & 0o777) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.npz"]
    fresh = tmp_path / "fresh.csv"
    write_atomically(fresh, b"x")
    mask = os.umask(0)
    os.umask(mask)
    assert fresh.read_bytes() == b"x" and (fresh.stat().st_mode & 0o777) == 0o666 & ~mask


@pytest.mark.parametrize("error", [KeyboardInterrupt, OSError])
def test_an_interrupted_write_leaves_the_old_file_whole_and_nothing_beside_it(tmp_path, error):
    target = tmp_path / "plot.png"
    target.write_bytes(b"old plot")
    with pytest.raises(error):
        with replacing(target) as tmp:
            assert tmp.parent == tmp_path and tmp.suffix == ".png"  # matplotlib goes by the suffix
            tmp.write_bytes(b"half a pl")
            raise error("stopped part way")
    assert target.read_bytes() == b"old plot"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plot.png"]


def test_a_saved_table_interrupted_while_written_leaves_the_old_file(tmp_path, monkeypatch):
    import numpy as np

    from pokersquares.evaluators import narl

    target = tmp_path / "td.npz"
    narl.write_saved(target, {"a": np.arange(3)}, {"kind": "old"})
    before = target.read_bytes()

    def interrupted(f, **arrays):
        f.write(b"PK\x03\x04 half a zip")
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez_compressed", interrupted)
    with pytest.raises(KeyboardInterrupt):
        narl.write_saved(target, {"a": np.arange(5)}, {"kind": "new"})
    assert target.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["td.npz"]


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="the kernel tells the mask in /proc (Linux)")
def test_a_new_files_mode_reads_the_umask_without_setting_it(tmp_path, monkeypatch):
    """Setting the mask to 0 to read it (and back) gave a file another thread created in
    that instant the mask 0: world-writable. The mask is read from the kernel instead."""
    before = os.umask(0o027)
    try:
        def no_umask(mask):
            raise AssertionError("the mask was set to read it")

        monkeypatch.setattr(os, "umask", no_umask)
        assert current_umask() == 0o027
        fresh = tmp_path / "fresh.json"
        write_atomically(fresh, "{}")
        assert fresh.stat().st_mode & 0o777 == 0o640
    finally:
        monkeypatch.undo()
        os.umask(before)
