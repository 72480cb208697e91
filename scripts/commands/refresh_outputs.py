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
from scripts.hooks.markdown_blocks import code_blocks

# Blocks run in this process; the CUDA build of torch would print Kineto's progress lines
# (`USDT: ... profiler_start`, `gpuGetDeviceCount failed`) into the terminal whenever one runs
# torch.profiler. Levels above USDT (5, the highest) silence them, as in tests/conftest.py.
os.environ.setdefault("KINETO_LOG_LEVEL", "6")


def markdown_files() -> list[Path]:
    """Every Markdown file under ``docs/`` plus ``README.md``, ``CONTRIBUTING.md`` and
    ``MAINTAINING.md``, sorted, as absolute paths: the pages whose blocks ``pytest`` runs
    (``testpaths`` in pyproject.toml)."""
    guides = ["README.md", "CONTRIBUTING.md", "MAINTAINING.md"]
    return sorted(ROOT.glob("docs/**/*.md")) + [ROOT / name for name in guides]


def run_block(code: str) -> str:
    """Execute ``code`` as pytest-codeblocks does (fresh globals) and return what it printed."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(code, "<markdown block>", "exec"), {"__MODULE__": "__main__"})  # noqa: S102
    return buf.getvalue()


def refresh_markdown(path: Path, write: bool, errors: list[str] | None = None) -> list[str]:
    """Refresh the expected outputs of one Markdown file; return ``file:line`` of stale ones.

    A block that raises is reported in ``errors`` (``file:line: ExceptionType: message``) and its
    output left alone; without an ``errors`` list, it raises ``SystemExit`` with that line.
    """
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    stale = []
    # Replace from the bottom up so earlier line numbers stay valid.
    for block in reversed(code_blocks(text)):
        if block.output is None or block.syntax != "python":
            continue
        try:
            printed = run_block(block.code)
        except Exception as exc:
            message = f"{rel}:{block.lineno}: block raised {type(exc).__name__}: {exc}"
            if errors is None:
                raise SystemExit(message) from exc
            errors.append(message)
            continue
        start, end, pad = block.output
        current = "".join(
            ln[min(len(pad), len(ln) - len(ln.lstrip(" "))) :] for ln in lines[start:end]
        )
        if printed != current:
            stale.append(f"{rel}:{start}")
            lines[start:end] = [
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
