"""Tests for ga.files: the atomic write: atomic replacement and appends."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from ga.files import atomic_write


def test_atomic_write_replaces_the_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "checkpoint.json"
    atomic_write(target, "first")
    atomic_write(target, "second, longer than the first")
    assert target.read_text() == "second, longer than the first"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint.json"]


def test_atomic_write_gives_the_usual_permissions(tmp_path: Path) -> None:
    previous = os.umask(0o022)
    try:
        atomic_write(tmp_path / "shared.json", "{}")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "shared.json").stat().st_mode) == 0o644  # readable by the people it is shared with


def test_atomic_write_works_past_a_temporary_left_by_a_dead_process(tmp_path: Path) -> None:
    stale = tmp_path / f".manifest.json.{os.getpid()}.tmp"
    stale.write_text("half a file")
    atomic_write(tmp_path / "manifest.json", "whole")
    assert (tmp_path / "manifest.json").read_text() == "whole"
    assert stale.read_text() == "half a file"  # not ours to remove: we cannot know it is dead
    assert len(list(tmp_path.iterdir())) == 2


def test_a_failed_atomic_write_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "config.toml"
    target.write_text("old")

    def no_rename(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", no_rename)
    with pytest.raises(OSError):
        atomic_write(target, "new")
    monkeypatch.undo()
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml"]
