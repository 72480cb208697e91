"""The contributor's one command: ``python -m scripts <subcommand> [options]``.

``python -m scripts --help`` lists the subcommands; ``python -m scripts <subcommand> --help``
lists a subcommand's options. Each subcommand is the ``main(argv)`` of one module, imported only
when it runs, so the listing starts in a few tens of milliseconds.
"""

from __future__ import annotations

import argparse
import importlib
import sys

#: Subcommand -> (module whose ``main(argv)`` runs it, what it does), in the order listed.
COMMANDS = {
    # the contributor's commands
    "execute": (
        "scripts.commands.stage",
        "run the execute stage alone: figures, notebooks, article downloads",
    ),
    "refresh-outputs": (
        "scripts.commands.refresh_outputs",
        "rewrite every expected output from what the code prints now",
    ),
    "serve-timing": (
        "scripts.commands.serve_timing",
        "time mkdocs serve: first page and an edited page",
    ),
    "budget-timing": (
        "scripts.commands.budget_timing",
        "time the budgets here and at a baseline revision",
    ),
    "build-imports": (
        "scripts.commands.build_imports",
        "count the project's lines one mkdocs build imports",
    ),
    "torch-matrix": (
        "scripts.commands.torch_matrix",
        "run the site's checks on each covered PyTorch release and CPU path",
    ),
    "site-pdf": ("scripts.commands.site_pdf", "print a built site as one PDF"),
    "translations": (
        "scripts.commands.translations",
        "list the Chinese pages' stale and missing sections; --stats: their sentence numbers",
    ),
    # checks of a built site
    "html-check": ("scripts.checks.html_check", "the Nu HTML checker on the built site"),
    "properdocs-check": (
        "scripts.checks.properdocs_check",
        "build with MkDocs and ProperDocs and compare",
    ),
    "lighthouse-audit": ("scripts.checks.lighthouse_audit", "Lighthouse on every page"),
    "zensical-canary": (
        "scripts.checks.zensical_canary",
        "what a Zensical build loses (a canary, never a gate)",
    ),
}


def parser() -> argparse.ArgumentParser:
    """The top-level parser: one subparser per :data:`COMMANDS` entry, for ``--help``
    and errors; everything after a subcommand's name goes to that subcommand's own parser."""
    top = argparse.ArgumentParser(prog="python -m scripts", description=__doc__.split("\n\n")[0])
    sub = top.add_subparsers(dest="command", metavar="<subcommand>", required=True)
    for name, (_, summary) in COMMANDS.items():
        sub.add_parser(name, help=summary, add_help=False)
    return top


def main(argv: list[str] | None = None) -> int:
    """Run the subcommand named first in ``argv`` (``sys.argv[1:]`` by default); return its exit
    status (2, with argparse's message, for an unknown subcommand)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] not in COMMANDS:
        parser().parse_args(argv[:1])  # --help, or an unknown subcommand: exits
    module = importlib.import_module(COMMANDS[argv[0]][0])
    sys.argv[0] = f"python -m scripts {argv[0]}"  # the subcommand's usage line names it
    return module.main(argv[1:]) or 0


if __name__ == "__main__":
    sys.exit(main())
