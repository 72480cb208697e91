"""scripts/commands/budget_timing.py: what it reads from the serve timing, how it runs a command in
a tree, and its table (the timings themselves are never asserted)."""

from __future__ import annotations

import sys

import pytest

from scripts.commands.budget_timing import serve_medians, summary, timed


def test_serve_medians_reads_the_summary_line_of_serve_timing():
    output = (
        "run 1: first page 8.57 s, page edit 6.86 s, figure edit 8.48 s\n"
        "median: first page 8.57 s, page edit 4.26 s, figure edit 8.48 s\n"
    )
    assert serve_medians(output) == (8.57, 4.26)


def test_serve_medians_refuses_a_run_that_printed_none():
    with pytest.raises(ValueError, match="no medians"):
        serve_medians("run 1: mkdocs serve exited while waiting for first page\n")


def test_a_module_runs_from_its_own_tree(tmp_path):
    """``python -m scripts.…`` in a tree imports that tree's ``scripts``, not this checkout's."""
    (tmp_path / ".cache").mkdir()
    (tmp_path / ".cache" / "old").write_text("stale")
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "__init__.py").write_text("")
    (tmp_path / "scripts" / "where.py").write_text(
        "import os, sys\nprint(os.getcwd(), __file__)\nsys.exit(3)\n"
    )
    seconds, status, output = timed(
        [sys.executable, "-m", "scripts.where"], tmp_path, clear=(".cache",)
    )
    assert not (tmp_path / ".cache").exists()
    assert output.split() == [str(tmp_path), str(tmp_path / "scripts" / "where.py")]
    assert status == 3 and seconds > 0


def test_the_table_gives_medians_and_the_ratio_checkout_over_baseline():
    table = summary({"build": {"baseline": [30.0, 20.0, 10.0], "checkout": [5.0, 40.0, 10.0]}})
    assert table.splitlines()[1].split() == ["build", "20.00s", "10.00s", "0.50"]


def test_the_serve_edit_is_timed_with_dirty_as_its_budget_is_set(monkeypatch, tmp_path):
    """The edit budget holds for ``mkdocs serve --dirty --no-strict``: the serve timing gets
    ``--dirty`` (which adds ``--no-strict``), in the tree being timed."""
    from scripts.commands import budget_timing

    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "__main__.py").write_text("")
    seen = []

    def fake_timed(command, tree, clear=()):
        seen.append((command, tree))
        return 1.0, 0, "median: first page 2.00 s, page edit 0.50 s, figure edit 3.00 s\n"

    monkeypatch.setattr(budget_timing, "timed", fake_timed)
    assert budget_timing.measure("serve", tmp_path) == {
        "serve first page": (2.0, 0),
        "serve page edit": (0.5, 0),
    }
    [(command, tree)] = seen
    assert command[1:4] == ["-m", "scripts", "serve-timing"] and "--dirty" in command
    assert tree == tmp_path
