"""Which of the project's own modules one ``mkdocs build`` imports, and how many lines they hold.

Usage (from the repository root)::

    python -m scripts build-imports            # a strict build into a temporary folder
    python -m scripts build-imports --env SITE_PDF=1

It runs ``mkdocs build --strict`` in a child process whose exit prints every module in
``sys.modules`` loaded from a file of this repository (the virtual environment, ``snippets/``,
which holds the pages' examples, and ``.cache/`` aside), then prints each with its ``wc -l``
line count and the total. The figure workers and notebook kernels are other processes: what they
import is the pages' own code (``snippets/``), not the build's.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

from scripts import ROOT

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
    total = 0
    for rel in modules:
        lines = len((ROOT / rel).read_bytes().splitlines())
        total += lines
        print(f"{lines:6d} {rel}")
    print(f"{total:6d} lines in {len(modules)} modules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
