"""Build the site with MkDocs and with ProperDocs, and check that readers get the same site.

Usage (from the repository root)::

    python -m scripts properdocs-check

MkDocs 1.x has had no release since 2024. ProperDocs (https://properdocs.org/) is its continuation
by its former maintainers, a drop-in replacement for MkDocs 1.6: the same ``mkdocs.yml`` (passed
with ``-f``), the same ``mkdocs.plugins`` and ``mkdocs.themes`` entry points (Material, the
mkdocs-jupyter plugin), the same hook API. It installs as its own package and command
(``properdocs``), not under the name ``mkdocs``: the ``properdocs`` command redirects every
``mkdocs.*`` import to ``properdocs.*`` (``properdocs/replacement.py``), so both live in one
virtual environment and ``mkdocs`` stays what the README names. ``requirements.txt`` pins both.

This check builds the site twice, strictly, at the same time (one build per core): with
``mkdocs build`` and with ``properdocs build`` (both by :func:`scripts.checks.site.build_site`, with
``-f mkdocs.yml``). It then compares what a reader gets:

* **pages**: every page of ``nav`` is built by both, and both write the same set of files;
* **links**: on every HTML page, the set of internal ``href`` and ``src`` values (relative URLs
  and ``#fragments``; external ones are left out) is the same, and so is the set of locations
  the search index points to;
* **figures**: every file under ``figures/`` has the same bytes in both.

Page text is not compared byte for byte: the generator's name is in every page's ``<meta
name="generator">``. It prints each difference and exits 1 when there is any, or when a build
fails or logs a warning. The audits (``python -m pytest -m audit``) make the same comparison
between their MkDocs build and a ProperDocs build (``tests/test_properdocs_check.py``, which also
tests the comparison on small made-up sites); this command runs it alone.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

from bs4 import BeautifulSoup

from scripts import ROOT
from scripts.checks.site import build_site, html_of, nav_pages

#: A log line that ``strict: true`` would count as a warning (colour codes allowed before it).
WARNING_LINE = re.compile(r"\s*(\x1b\[[0-9;]*m)*WARNING")


def is_internal(url: str) -> bool:
    """Whether ``url`` points into the site: a relative URL or a ``#fragment``.

    ``mailto:``, ``data:``, ``http(s)://`` and protocol-relative ``//host`` URLs are not.
    """
    parts = urlsplit(url.strip())
    return not parts.scheme and not parts.netloc and not url.strip().startswith("//")


def internal_links(html: str) -> set[str]:
    """The internal ``href`` and ``src`` values of every element of ``html``, as written."""
    soup = BeautifulSoup(html, "html.parser")
    return {
        value
        for attr in ("href", "src")
        for tag in soup.find_all(attrs={attr: True})
        if is_internal(value := tag[attr])
    }


def site_files(site: Path) -> set[str]:
    """Every file under ``site``, as a POSIX path relative to it."""
    return {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}


def search_locations(index: Path) -> set[str]:
    """The ``location`` of every entry of a search index (``search/search_index.json``)."""
    return {doc["location"] for doc in json.loads(index.read_text(encoding="utf-8"))["docs"]}


def compare_sites(a: Path, b: Path, pages: list[str], names: tuple[str, str]) -> list[str]:
    """Differences a reader could notice between the built sites ``a`` and ``b``, one per line.

    ``pages`` are the nav pages (paths under ``docs/``) that must be built in both; ``names``
    label ``a`` and ``b`` in the messages. Compares the set of files, the set of internal links of
    every HTML page both have and of the search index, and the bytes of every file under
    ``figures/``. An empty list means
    no difference.
    """
    problems = []
    for page in pages:
        for name, site in zip(names, (a, b), strict=True):
            if not html_of(site, page).is_file():
                problems.append(f"pages: {page} not built by {name}")
    files_a, files_b = site_files(a), site_files(b)
    for only, name in ((files_a - files_b, names[0]), (files_b - files_a, names[1])):
        problems += [f"pages: {path} only in the {name} build" for path in sorted(only)]
    for path in sorted(p for p in files_a & files_b if p.endswith(".html")):
        links_a = internal_links((a / path).read_text(encoding="utf-8"))
        links_b = internal_links((b / path).read_text(encoding="utf-8"))
        for only, name in ((links_a - links_b, names[0]), (links_b - links_a, names[1])):
            problems += [
                f"links: {path} links to {url!r} only in the {name} build" for url in sorted(only)
            ]
    index = "search/search_index.json"
    if index in files_a & files_b:
        found_a, found_b = search_locations(a / index), search_locations(b / index)
        for only, name in ((found_a - found_b, names[0]), (found_b - found_a, names[1])):
            problems += [
                f"links: the search index points to {loc!r} only in the {name} build"
                for loc in sorted(only)
            ]
    figures = sorted(p for p in files_a & files_b if p.startswith("figures/"))
    problems += [
        f"figures: {path} differs"
        for path in figures
        if (a / path).read_bytes() != (b / path).read_bytes()
    ]
    return problems


#: Lines of a failed build's log that are printed (its end, where the error is).
LOG_TAIL = 40


def build_problems(name: str, proc: subprocess.CompletedProcess) -> list[str]:
    """Why a build counts as failed: a non-zero exit status, or warning lines in its log."""
    if proc.returncode != 0:
        errors = [line for line in proc.stdout.splitlines() if line.startswith("ERROR")]
        tail = "\n".join(proc.stdout.splitlines()[-LOG_TAIL:])
        return [
            f"{name} build failed (exit status {proc.returncode}):\n"
            + "\n".join(errors)
            + f"\n... last {LOG_TAIL} lines of its log:\n{tail}"
        ]
    return [
        f"{name} build: {line.strip()}"
        for line in proc.stdout.splitlines()
        if WARNING_LINE.match(line)
    ]


def main(argv: list[str] | None = None) -> int:
    """Build with both generators, compare, print the result; return the exit status (0 or 1)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="build into DIR/mkdocs and DIR/properdocs and keep them "
        "(default: a temporary folder, deleted afterwards)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=300,
        help="seconds each build may take (default 300: both run at once)",
    )
    args = parser.parse_args(argv)
    try:
        import properdocs
    except ImportError:
        print("ProperDocs is not installed: python -m pip install -r requirements.txt")
        return 1
    with tempfile.TemporaryDirectory(prefix="properdocs-check-") as tmp:
        out = args.keep or Path(tmp)
        mk, pd = out / "mkdocs", out / "properdocs"
        print(
            f"building with MkDocs and ProperDocs {properdocs.__version__} into {out}", flush=True
        )
        with ThreadPoolExecutor(max_workers=2) as pool:
            builds = {
                name: pool.submit(build_site, ROOT, dest, generator, args.timeout)
                for name, generator, dest in (
                    ("MkDocs", "mkdocs", mk),
                    ("ProperDocs", "properdocs", pd),
                )
            }
            procs = {name: build.result() for name, build in builds.items()}
        problems = [p for name, proc in procs.items() for p in build_problems(name, proc)]
        if not problems:
            problems = compare_sites(mk, pd, nav_pages(), ("MkDocs", "ProperDocs"))
        pages = len(nav_pages())
    if problems:
        print("\n".join(problems))
        print(f"ProperDocs check failed: {len(problems)} difference(s)")
        return 1
    print(f"ProperDocs builds the same site: {pages} nav pages, their links and figures")
    return 0


if __name__ == "__main__":
    sys.exit(main())
