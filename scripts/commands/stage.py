"""Run the execute stage alone (:func:`scripts.build.execute.run`): draw the stale figures,
execute the stale notebooks and make the article downloads, as a build does before rendering.

Usage (from the repository root)::

    python -m scripts execute           # prints each notebook, executed or reused, and its copy
    python -m scripts execute --fresh   # every notebook executed into a temporary folder
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from scripts import ROOT
from scripts.build.execute import NotebookFailed, run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fresh", action="store_true",
                        help="execute every notebook into a temporary folder, whatever is cached")
    args = parser.parse_args(argv)
    import yaml
    from mkdocs.exceptions import PluginError

    from scripts.build.article_downloads import articles

    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)  # noqa: S506
    with tempfile.TemporaryDirectory() as tmp:
        try:
            made = run(ROOT, Path(tmp) if args.fresh else None, None,
                       tuple(articles(config["nav"])), config.get("site_url") or "/")
        except (NotebookFailed, PluginError) as error:
            print(error, file=sys.stderr)
            return 1
        for uri, (base, now) in made.notebooks.items():
            where = "(temporary copy)" if args.fresh else (base / uri).relative_to(ROOT)
            print(f"{'executed' if now else 'reused  '} {uri} -> {where}")
        for page, folder in made.articles.items():
            for path in sorted(folder.iterdir()):
                print(f"download {page} -> {path.relative_to(ROOT)}")
        print(f"figures  -> {(ROOT / '.cache' / 'figures').relative_to(ROOT)}/")
    return 0
