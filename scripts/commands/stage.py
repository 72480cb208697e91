"""Run the execute stage alone (:func:`scripts.hooks.execute.run`): draw the stale figures,
execute the stale notebooks and make the article downloads, as a build does before rendering.

Usage (from the repository root)::

    python -m scripts execute           # prints each notebook, executed or reused, and its copy
    python -m scripts execute --fresh   # everything made afresh, into a temporary folder
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from scripts import ROOT
from scripts.hooks.execute import run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="make everything afresh into a temporary folder, whatever is cached",
    )
    args = parser.parse_args(argv)
    import yaml
    from mkdocs.exceptions import PluginError

    from scripts.hooks.article_notebooks import articles

    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)  # noqa: S506
    with tempfile.TemporaryDirectory() as tmp:
        try:
            made = run(
                ROOT,
                None,
                tuple(articles(config["nav"])),
                config.get("site_url") or "/",
                Path(tmp) if args.fresh else None,
            )
        except PluginError as error:
            print(error, file=sys.stderr)
            return 1
        for job, entry, now in made:
            where = "(temporary copy)" if args.fresh else entry.relative_to(ROOT)
            print(f"{'made  ' if now else 'reused'} {job.kind:8} {job.name} -> {where}")
    return 0
