"""Which of the project's own modules one ``mkdocs build`` imports, and how many code lines they
hold: the build's budget is at most :data:`BUDGET` code lines.

Usage (from the repository root)::

    python -m scripts build-imports            # a strict build into a temporary folder
    python -m scripts build-imports --env SITE_PDF=1

It runs ``mkdocs build --strict`` in a child process whose exit prints every module in
``sys.modules`` loaded from a file of this repository (the virtual environment, ``snippets/``,
which holds the pages' examples, and ``.cache/`` aside), then prints each with its count of
code lines (:func:`code_lines`: statements; docstrings, comments, blank lines and the formatter's
line breaks are free, so that the budget never argues for a shorter explanation or a denser
layout) and its ``wc -l`` count, and the totals. It exits 1 when
the code lines are over :data:`BUDGET`. The figure workers and notebook kernels are other
processes: what they import is the pages' own code (``snippets/``), not the build's.
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import os
import subprocess
import sys
import tempfile
import tokenize

from scripts import ROOT

#: The most code lines (:func:`code_lines`) the modules a build imports may hold together (issue
#: 50). The budget was 1,800 ``wc -l`` lines before; a docstring's sentence no longer costs.
BUDGET = 1300

#: Run in the child: a build, then the project's modules as JSON on the last line of stdout.
CHILD = """
import atexit, json, runpy, sys
from pathlib import Path
root = Path(sys.argv[1])
def report():
    found = set()
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if not path:
            continue
        path = Path(path).resolve()
        if root in path.parents and not {".venv", "snippets", ".cache"} & set(
                path.relative_to(root).parts):
            found.add(path.relative_to(root).as_posix())
    print("\\nMODULES " + json.dumps(sorted(found)), flush=True)
atexit.register(report)
sys.argv = ["mkdocs", "build", "--strict", "-d", sys.argv[2]]
runpy.run_module("mkdocs", run_name="__main__")
"""


def imported_modules(env: dict[str, str]) -> list[str]:
    """The project's files a strict ``mkdocs build`` imports (paths relative to the project).
    Raises ``RuntimeError`` with the log's end when the build fails."""
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, str(ROOT), tmp],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env={**os.environ, "NO_MKDOCS_2_WARNING": "1", **env},
        )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("MODULES ")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"the build failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(lines[-1].removeprefix("MODULES "))


def docstring_lines(tree: ast.Module) -> set[int]:
    """The line numbers (1-based) of every docstring of a module's syntax ``tree``: the string
    that is the first statement of the module, of a class or of a function."""
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            is_string = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            if is_string and isinstance(first.value.value, str):
                lines.update(range(first.lineno, first.end_lineno + 1))
    return lines


def code_lines(source: str) -> int:
    """How many lines of code the Python ``source`` holds, as Python counts its logical lines
    (one per statement, and one per clause header such as ``def f():`` or ``else:``; the
    language reference, "Lexical analysis", 2.1.1), outside the docstrings
    (:func:`docstring_lines`). A statement the formatter lays out over several physical lines
    counts once, so ``ruff format``'s line breaks, comments, blank lines and docstrings are all
    free: the budget counts what the code does, not how it is laid out or explained. Raises
    ``SyntaxError`` for source Python cannot read."""
    free = docstring_lines(ast.parse(source))
    count = 0
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.NEWLINE and token.start[0] not in free:
            count += 1
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an environment variable for the build (repeatable)",
    )
    args = parser.parse_args(argv)
    env = dict(item.split("=", 1) for item in args.env)
    modules = imported_modules(env)
    total_code = 0
    total_lines = 0
    print("  code  lines module")
    for rel in modules:
        source = (ROOT / rel).read_text(encoding="utf-8")
        code = code_lines(source)
        lines = len(source.splitlines())
        total_code += code
        total_lines += lines
        print(f"{code:6d} {lines:6d} {rel}")
    print(
        f"{total_code:6d} {total_lines:6d} in {len(modules)} modules (budget: {BUDGET} code lines)"
    )
    if total_code > BUDGET:
        print(f"over the budget by {total_code - BUDGET} code lines")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
