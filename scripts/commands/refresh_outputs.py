"""Rewrite every expected output on the site from what the code prints now.

Usage (from the repository root, after a deliberate change — a new PyTorch pin, an edited
example)::

    python -m scripts refresh-outputs            # rewrite, then review with `git diff`
    python -m scripts refresh-outputs --check    # only report what is stale; exit 1 if anything is

It rewrites

* the block after each ``<!--pytest-codeblocks:expected-output-->`` marker in ``docs/**/*.md``
  and ``README.md``, from the output of the ```` ```python ```` block above it (run as
  pytest-codeblocks runs it, with fresh globals);
* each ``snippets/**/<name>.out`` file, from the output of ``snippets/**/<name>.py`` run as
  ``__main__``.

Exit status: 0 when nothing was stale (or everything was rewritten), 1 with ``--check`` when
something was stale. A block that raises stops the run with its file and line.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import runpy
import sys
from pathlib import Path

from scripts import ROOT
from scripts.commands.markdown_model import markdown_files, read_fences, run_block

# Blocks run in this process; the CUDA build of torch would print Kineto's progress lines
# (`USDT: ... profiler_start`, `gpuGetDeviceCount failed`) into the terminal whenever one runs
# torch.profiler. Levels above USDT (5, the highest) silence them, as in tests/conftest.py.
os.environ.setdefault("KINETO_LOG_LEVEL", "6")


def refresh_markdown(path: Path, write: bool, errors: list[str] | None = None) -> list[str]:
    """Refresh the expected outputs of one Markdown file; return ``file:line`` of stale ones.

    A block that raises is reported in ``errors`` (``file:line: ExceptionType: message``) and its
    output left alone; without an ``errors`` list, it raises ``SystemExit`` with that line.
    """
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    stale = []
    fences = read_fences(path)
    # Replace from the bottom up so earlier line numbers stay valid.
    for n in range(len(fences) - 1, 0, -1):
        out_fence, code_fence = fences[n], fences[n - 1]
        if not out_fence.is_expected_output or not code_fence.executed_by_codeblocks:
            continue
        try:
            printed = run_block("\n".join(code_fence.body) + "\n")
        except Exception as exc:
            message = f"{code_fence.where()}: block raised {type(exc).__name__}: {exc}"
            if errors is None:
                raise SystemExit(message) from exc
            errors.append(message)
            continue
        current = "".join(ln + "\n" for ln in out_fence.body)
        if printed != current:
            stale.append(out_fence.where())
            pad = out_fence.indent
            lines[out_fence.line : out_fence.end_line - 1] = [
                (pad + ln if ln.strip() else ln) for ln in printed.splitlines(keepends=True)
            ]
    if stale and write:
        path.write_text("".join(lines), encoding="utf-8")
    return stale


def refresh_snippet_outputs(write: bool) -> list[str]:
    """Refresh every ``snippets/**/<name>.out`` from its script; return the stale ones."""
    stale = []
    for golden in sorted((ROOT / "snippets").rglob("*.out")):
        script = golden.with_suffix(".py")
        buf = io.StringIO()
        old_argv = sys.argv
        sys.argv = [str(script)]
        try:
            with contextlib.redirect_stdout(buf):
                runpy.run_path(str(script), run_name="__main__")
        finally:
            sys.argv = old_argv
        if buf.getvalue() != golden.read_text(encoding="utf-8"):
            stale.append(golden.relative_to(ROOT).as_posix())
            if write:
                golden.write_text(buf.getvalue(), encoding="utf-8")
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="report stale outputs, change nothing")
    args = parser.parse_args(argv)
    stale: list[str] = []
    errors: list[str] = []
    for path in markdown_files():
        stale += refresh_markdown(path, write=not args.check, errors=errors)
    stale += refresh_snippet_outputs(write=not args.check)
    verb = "stale" if args.check else "rewritten"
    for item in stale:
        print(f"{verb}: {item}")
    for item in errors:
        print(f"error: {item}")
    if not stale and not errors:
        print("all expected outputs are current")
    return 1 if errors or (stale and args.check) else 0


if __name__ == "__main__":
    sys.exit(main())
