"""Check the built site's HTML with the W3C Nu HTML checker, and fail on errors the site makes.

Usage (from the repository root; needs Java 11 or newer and Node.js with npm)::

    python -m scripts html-check                # builds the site first
    python -m scripts html-check --site DIR     # checks an existing build

The checker is ``vnu.jar`` from the npm package ``vnu-jar``, pinned in ``.ci/vnu/package-lock.json``
and installed there with ``npm ci`` on first use. It checks every HTML file of the site (errors
only, not warnings). Errors that Material's own templates make, which the site cannot fix
without copying the templates, are listed in :data:`THEME_ERRORS` with the template that makes
them and counted apart; any other error is the site's, is printed with its file and line, and
makes the exit status 1. The audits (``python -m pytest -m audit``) run the checker on their
build; ``tests/test_html_check.py`` holds that audit and tests the sorting on made-up messages.

Exit status: 0 with no site-made error, 1 with some, 2 when the checker could not run.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from scripts import ROOT
from scripts.checks.site import npm_ci, site_to_check

VNU_DIR = ROOT / ".ci" / "vnu"
VNU_JAR = VNU_DIR / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"

#: Errors of Material for MkDocs' templates (9.8): message pattern -> where it comes from.
THEME_ERRORS = {
    # partials/nav-item.html writes tabindex="{{ tabindex }}" on a navigation label, with
    # {% set tabindex = "0" if not is_section %}: empty on every section's label.
    r"^Bad value “” for attribute “tabindex” on element “label”": (
        "Material's partials/nav-item.html: empty tabindex on navigation labels"
    ),
    # base.html's drawer and search toggles (#__drawer, #__search) are checkboxes with
    # autocomplete="off": two per page.
    r"^Attribute “autocomplete” is only allowed when the input type is": (
        "Material's base.html: autocomplete on its toggle checkboxes"
    ),
}


@dataclass(frozen=True)
class Message:
    """One error of the checker: the file (relative to the site), its line, and the message."""

    file: str
    line: int | None
    text: str

    def theme_source(self) -> str | None:
        """Where in the theme the error comes from (:data:`THEME_ERRORS`), or ``None``."""
        return next(
            (why for pattern, why in THEME_ERRORS.items() if re.search(pattern, self.text)), None
        )


def messages(report: dict, site: Path) -> list[Message]:
    """The errors of the checker's JSON report (``--format json``) on the files under ``site``."""
    found = []
    for m in report.get("messages", []):
        if m.get("type") != "error":
            continue
        url = m.get("url", "")
        path = url.removeprefix("file:")
        try:
            name = Path(path).resolve().relative_to(site.resolve()).as_posix()
        except ValueError:
            name = path
        found.append(Message(name, m.get("lastLine"), m.get("message", "")))
    return found


def ensure_checker() -> None:
    """Install the pinned checker into ``.ci/vnu/node_modules`` when it is missing. Raises
    ``SystemExit`` when npm or Java is missing, or npm fails."""
    if shutil.which("java") is None:
        raise SystemExit(
            "java not found: install a Java runtime (apt-get install default-jre-headless)"
        )
    if not VNU_JAR.is_file():
        npm_ci(VNU_DIR, "the Nu HTML checker")


def check(site: Path) -> list[Message]:
    """Run the checker on every HTML file under ``site``; return its errors. Raises
    ``RuntimeError`` when the checker gives no report."""
    proc = subprocess.run(
        [
            "java",
            "-jar",
            str(VNU_JAR),
            "--errors-only",
            "--format",
            "json",
            "--skip-non-html",
            str(site),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    try:
        report = json.loads(proc.stderr or proc.stdout)
    except json.JSONDecodeError as error:
        raise RuntimeError(
            f"the checker gave no report (exit {proc.returncode}): "
            f"{(proc.stderr or proc.stdout)[-2000:]}"
        ) from error
    return messages(report, site)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--site", type=Path, metavar="DIR", help="a built site to check (default: build one)"
    )
    args = parser.parse_args(argv)
    try:
        ensure_checker()
    except (SystemExit, subprocess.CalledProcessError) as error:
        print(f"HTML check: {error}")
        return 2
    with tempfile.TemporaryDirectory(prefix="html-check-") as tmp:
        try:
            site = site_to_check(args.site, Path(tmp))
            found = check(site)
        except (RuntimeError, subprocess.TimeoutExpired) as error:
            print(f"HTML check: {error}")
            return 2
        pages = sum(1 for _ in site.rglob("*.html"))
    theirs = [m for m in found if m.theme_source()]
    ours = [m for m in found if not m.theme_source()]
    for why in sorted({m.theme_source() for m in theirs}):
        count = sum(m.theme_source() == why for m in theirs)
        print(f"  theme, not the site ({count}): {why}")
    for m in ours:
        print(f"  {m.file}:{m.line}: {m.text}")
    print(
        f"HTML check (Nu HTML checker): {pages} HTML files, {len(ours)} error(s) made by the "
        f"site, {len(theirs)} by the theme's templates"
    )
    return 1 if ours else 0


if __name__ == "__main__":
    sys.exit(main())
