"""Time the contributor's budgets here and at a baseline revision, on this machine, in one run.

A budget in seconds holds on one machine: this project's were set on a two-core machine about
twice as fast as some others it runs on. What carries from one machine to another is the ratio
of two revisions measured side by side, so this script times the same things in the checkout and
in a baseline revision, run after run, and reports each median and their ratio::

    python -m scripts budget-timing --baseline <rev>                 # 3 runs, everything
    python -m scripts budget-timing --baseline <rev> --only build serve --runs 5

The baseline is checked out with ``git worktree`` into a temporary folder (removed at the end);
both trees run with this environment's packages. Each run times, in each tree (which tree goes
first alternates from run to run, so a machine that slows down or warms up favours neither), in
seconds of wall time:

* ``build, empty cache``: a cold strict build, ``mkdocs build --strict`` after deleting
  ``.cache/`` and ``site/`` (every figure drawn, notebook executed and, where the tree prints one,
  the PDF); ``build, cache kept``: the same command once more, in a new process;
* ``serve first page`` and ``serve page edit``: that tree's own ``python -m scripts serve-timing
  --runs 1 --dirty`` (its own page and figure edits, served with ``mkdocs serve --dirty
  --no-strict``, the loop the edit budget is set for; a baseline without the script cannot be
  timed this way and the script stops);
* ``suite, empty cache``: ``python -m pytest`` after deleting ``.cache/``, as a fresh clone and
  CI run it; ``suite, nothing changed``: the same command once more.

Prints every measurement as it is taken, with the exit status of a command that failed (a failed
test in a baseline is timed like a passing one, but said), then a table of medians and ratios
(checkout / baseline). Nothing is asserted: timing is the reader's to judge, against the budget's
own baseline. Exit status 0, or 2 for a bad argument or a revision git does not know; a
serve timing that prints no medians stops the script with ``ValueError`` (its output quoted),
after the baseline's worktree is removed.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scripts import ROOT

#: What can be timed, in the order each run times it.
MEASURES = ("build", "serve", "suite")
#: The summary line of ``scripts/commands/serve_timing.py``.
_SERVE_MEDIAN = re.compile(r"^median: first page ([\d.]+) s, page edit ([\d.]+) s", re.M)


def timed(command: list[str], tree: Path, clear: tuple[str, ...] = ()) -> tuple[float, int, str]:
    """Run ``command`` in ``tree`` after deleting the folders ``clear`` (relative to ``tree``).
    Returns (wall seconds, exit status, output).

    Every command is ``python -m …`` started in ``tree``, so ``tree`` is first on ``sys.path``
    and its own ``scripts`` package is the one imported, not the checkout's editable install.
    ``PYTHONPATH`` is left as it is: set to a tree, it also reaches the kernels that tests start
    in temporary projects, which then import that tree's ``snippets`` instead of their own."""
    for name in clear:
        shutil.rmtree(tree / name, ignore_errors=True)
    start = time.perf_counter()
    run = subprocess.run(command, cwd=tree, capture_output=True, text=True)
    return time.perf_counter() - start, run.returncode, run.stdout + run.stderr


def serve_medians(output: str) -> tuple[float, float]:
    """(first page, page edit), in seconds, from ``scripts/commands/serve_timing.py``'s output.
    Raises ``ValueError`` when the output has no summary line (the run failed)."""
    match = _SERVE_MEDIAN.search(output)
    if match is None:
        raise ValueError(f"scripts.commands.serve_timing printed no medians:\n{output[-2000:]}")
    return float(match[1]), float(match[2])


def serve_command(tree: Path) -> list[str]:
    """The serve timing's module and arguments in ``tree``: the subcommand of ``python -m scripts``
    where the tree has that entry point, else the module of older trees."""
    if (tree / "scripts" / "__main__.py").is_file():
        return ["scripts", "serve-timing"]
    return ["scripts.serve_timing"]


def measure(what: str, tree: Path) -> dict[str, tuple[float, int]]:
    """Time ``what`` (one of :data:`MEASURES`) in ``tree``: {measurement: (seconds, status)}."""
    python = sys.executable
    if what == "build":
        command = [python, "-m", "mkdocs", "build", "--strict"]
        cold = timed(command, tree, (".cache", "site"))
        warm = timed(command, tree, ("site",))
        return {"build, empty cache": cold[:2], "build, cache kept": warm[:2]}
    if what == "serve":
        _, status, output = timed(
            [python, "-m", *serve_command(tree), "--runs", "1", "--dirty"], tree
        )
        first, edit = serve_medians(output)
        return {"serve first page": (first, status), "serve page edit": (edit, status)}
    command = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    empty = timed(command, tree, (".cache",))
    again = timed(command, tree)
    return {"suite, empty cache": empty[:2], "suite, nothing changed": again[:2]}


def summary(times: dict[str, dict[str, list[float]]]) -> str:
    """A table of medians and ratios from ``times`` ({measurement: {"baseline": [seconds…],
    "checkout": [seconds…]}})."""
    lines = [f"{'':26}{'baseline':>10}{'checkout':>10}{'ratio':>8}"]
    for name, by_tree in times.items():
        base, now = (statistics.median(by_tree[t]) for t in ("baseline", "checkout"))
        lines.append(f"{name:26}{base:9.2f}s{now:9.2f}s{now / base:8.2f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="a git revision (commit, tag, branch)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", nargs="+", choices=MEASURES, default=list(MEASURES))
    args = parser.parse_args(argv)
    rev = subprocess.run(
        ["git", "rev-parse", "--verify", f"{args.baseline}^{{commit}}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if rev.returncode:
        print(f"not a revision: {args.baseline}", file=sys.stderr)
        return 2
    folder = Path(tempfile.mkdtemp(prefix="budget-baseline-"))
    baseline = folder / "tree"
    subprocess.run(
        ["git", "worktree", "add", "--detach", str(baseline), rev.stdout.strip()],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    trees = {"checkout": ROOT, "baseline": baseline}
    times: dict[str, dict[str, list[float]]] = {}
    try:
        for n in range(1, args.runs + 1):
            order = ["baseline", "checkout"] if n % 2 else ["checkout", "baseline"]
            for what in (m for m in MEASURES if m in args.only):
                for name in order:
                    for key, (seconds, status) in measure(what, trees[name]).items():
                        times.setdefault(key, {"baseline": [], "checkout": []})[name].append(
                            seconds
                        )
                        failed = f" (exit status {status})" if status else ""
                        print(f"run {n}, {name}: {key} {seconds:.2f} s{failed}", flush=True)
    finally:
        subprocess.run(
            ["git", "worktree", "remove", "--force", str(baseline)], cwd=ROOT, capture_output=True
        )
        shutil.rmtree(folder, ignore_errors=True)
    print(summary(times))
    return 0


if __name__ == "__main__":
    sys.exit(main())
