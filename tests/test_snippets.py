"""Every runnable file in ``snippets/`` runs as ``__main__``; its output matches its ``.out`` file.

A page includes regions of these files with ``--8<--`` and shows ``<name>.out`` as the output, so
the output on the page is the output tested here. Refresh ``.out`` files after a deliberate change
with ``python -m scripts refresh-outputs``.
"""

from __future__ import annotations

import runpy
import sys

import pytest

from scripts import ROOT

#: Figure modules (``figures.py``, ``figure_style.py``) are drawn by tests/test_figures.py instead;
#: a program that defines ``WORLD_SIZES`` is one rank of a ``torchrun`` job and runs on real
#: processes in tests/test_sharded_programs.py.
SNIPPETS = sorted(
    p
    for p in (ROOT / "snippets").rglob("*.py")
    if p.name not in ("__init__.py", "figures.py", "figure_style.py")
    and "\nWORLD_SIZES = " not in p.read_text(encoding="utf-8")
)

#: Command-line arguments a snippet gets when the tests run it (default: none).
ARGS: dict[str, list[str]] = {
    # Tiny sizes; writes its data set to a temporary folder and deletes it (never to results/).
    "snippets/benchmarks/lookup_vs_onehot.py": ["--quick"],
}


def run_snippet(path, capsys) -> str:
    """Run ``path`` as ``__main__`` in this process and return its stdout (text)."""
    rel = path.relative_to(ROOT).as_posix()
    old_argv = sys.argv
    sys.argv = [str(path), *ARGS.get(rel, [])]
    try:
        runpy.run_path(str(path), run_name="__main__")
    finally:
        sys.argv = old_argv
    return capsys.readouterr().out


@pytest.mark.parametrize("path", SNIPPETS, ids=[p.relative_to(ROOT).as_posix() for p in SNIPPETS])
def test_snippet_runs_as_main_and_prints_its_golden_output(path, capsys):
    source = path.read_text(encoding="utf-8")
    assert 'if __name__ == "__main__":' in source, f"{path.name} has no __main__ guard"
    out = run_snippet(path, capsys)
    golden = path.with_suffix(".out")
    if golden.exists():
        assert out == golden.read_text(encoding="utf-8"), (
            f"{path.name} printed something else than {golden.name} "
            "(after a deliberate change: python -m scripts refresh-outputs)"
        )
