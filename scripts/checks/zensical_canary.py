"""Build the site with Zensical and report what readers would lose (a canary, never a gate).

Usage (from the repository root)::

    python -m scripts zensical-canary                     # builds with MkDocs too, to compare
    python -m scripts zensical-canary --reference DIR     # compare with an existing MkDocs build

Zensical (https://zensical.org/) is the Material team's successor to MkDocs. It reads
``mkdocs.yml`` and runs Python-Markdown extensions, but no MkDocs hooks or plugins: no
mkdocs-jupyter, and nothing of ``scripts/hooks/``. Given the files the execute stage makes, it
shows the figures, and the math (a Markdown extension, ``scripts/hooks/markdown_math.py``), but
builds no notebook page and none of the lines the hooks add, and says "No issues found". This canary
makes that visible, page by page, so the day a release renders them is seen too.

It installs :data:`ZENSICAL` (pinned) into its own virtual environment, ``.cache/zensical/venv``,
with the site's Markdown packages at the pins of ``requirements.txt`` (:data:`MARKDOWN_PACKAGES`),
builds a copy of the project with the execute stage's outputs in its ``docs/`` (the figures and
the executed notebooks; Zensical writes its cache next to its configuration), and compares
each page of ``nav`` with the MkDocs build: figures whose image file exists, ``<math>`` formulas,
and for a notebook page its code cells and outputs. It prints one line per page that loses
something, and a summary. Exit status 0 whatever it finds (``--strict``: 1 when a page loses
anything), 2 when Zensical could not be installed or run. CI (``.ci/run``) runs it after the
ProperDocs check, which it does not fail.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bs4 import BeautifulSoup

from scripts import ROOT
from scripts.checks.site import html_of, nav_pages, site_to_check

#: The newest Zensical that installs from the package registry this project uses: 0.0.74 and
#: later need a ``zensical-ui`` release the registry does not serve (checked 2026-11-25).
ZENSICAL = "0.0.73"
#: Packages that the site's Markdown extensions import (``mkdocs.yml``), installed beside
#: Zensical at the versions ``requirements.txt`` pins.
MARKDOWN_PACKAGES = [
    "mkdocs-material",
    "pymdown-extensions",
    "Markdown",
    "Pygments",
    "latex2mathml",
]
VENV = ROOT / ".cache" / "zensical" / "venv"
#: What the copy of the project holds: everything a page or ``mkdocs.yml`` reads.
PROJECT_FILES = ["mkdocs.yml", "docs", "snippets", "scripts", "README.md"]


@dataclass(frozen=True)
class Content:
    """What a reader sees of one page that code made: figures whose file exists, formulas,
    notebook code cells and outputs (counts). ``built`` is False when the page is missing."""

    built: bool
    figures: int = 0
    formulas: int = 0
    cells: int = 0
    outputs: int = 0


def page_content(site: Path, page: str) -> Content:
    """The :class:`Content` of the nav page ``page`` (a path under ``docs/``) in ``site``."""
    path = html_of(site, page)
    if not path.is_file():
        return Content(built=False)
    soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
    article = soup.find("article") or soup
    figures = sum(
        1
        for img in article.find_all("img", src=True)
        if not re.match(r"[a-z]+:", img["src"])
        and (path.parent / img["src"].split("#")[0]).is_file()
    )
    notebook = page.endswith(".ipynb")
    return Content(
        built=True,
        figures=figures,
        formulas=len(article.find_all("math")),
        cells=len(article.select(".nb-cell, .jp-Cell.jp-CodeCell")) if notebook else 0,
        outputs=len(article.select(".nb-output, .jp-OutputArea-output")) if notebook else 0,
    )


def losses(reference: Content, other: Content) -> list[str]:
    """What ``other`` lacks of ``reference``, in words (empty: nothing lost)."""
    if not other.built:
        return ["not built"] if reference.built else []
    lost = []
    for field, words in (
        ("figures", "figures"),
        ("formulas", "formulas"),
        ("cells", "notebook cells"),
        ("outputs", "notebook outputs"),
    ):
        had, has = getattr(reference, field), getattr(other, field)
        if has < had:
            lost.append(f"{had - has} of {had} {words}")
    return lost


def report(reference: Path, zensical: Path, pages: list[str]) -> list[str]:
    """One line per page of ``pages`` that the ``zensical`` build shows with less than the
    ``reference`` (MkDocs) build: ``"<page>: loses …"`` or ``"<page>: not built"``."""
    lines = []
    for page in pages:
        lost = losses(page_content(reference, page), page_content(zensical, page))
        if lost == ["not built"]:
            lines.append(f"{page}: not built")
        elif lost:
            lines.append(f"{page}: loses {', '.join(lost)}")
    return lines


def pins(names: list[str], requirements: Path = ROOT / "requirements.txt") -> list[str]:
    """``name==version`` for each of ``names`` as ``requirements.txt`` pins it (case and ``-``/``_``
    ignored). Raises ``ValueError`` for a name it does not pin."""

    def canonical(name: str) -> str:
        return name.lower().replace("_", "-")

    pinned = dict(
        (canonical(m[1]), f"{m[1]}=={m[2]}")
        for m in re.finditer(
            r"^([A-Za-z0-9._-]+)==(\S+)", requirements.read_text(encoding="utf-8"), re.MULTILINE
        )
    )
    missing = [n for n in names if canonical(n) not in pinned]
    if missing:
        raise ValueError(f"requirements.txt does not pin {', '.join(missing)}")
    return [pinned[canonical(n)] for n in names]


def ensure_zensical(venv: Path = VENV) -> Path:
    """The ``zensical`` command of ``venv``, installed when missing or when the pins changed
    (pip's output in ``venv/install.log``). Raises ``subprocess.CalledProcessError`` when
    ``venv`` or ``pip`` fails, ``ValueError`` when ``requirements.txt`` lacks a pin."""
    wanted = "\n".join([f"zensical=={ZENSICAL}", *pins(MARKDOWN_PACKAGES)]) + "\n"
    stamp, command = venv / "requirements.txt", venv / "bin" / "zensical"
    if command.exists() and stamp.exists() and stamp.read_text() == wanted:
        return command
    if venv.exists():
        shutil.rmtree(venv)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    with (venv / "install.log").open("w") as log:
        subprocess.run(
            [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *wanted.split()],
            stdout=log,
            stderr=subprocess.STDOUT,
            check=True,
        )
    stamp.write_text(wanted)
    return command


def add_executed_outputs(docs: Path) -> None:
    """Put what the execute stage makes (``scripts/hooks/execute.py``, run here if stale) into the
    copy's ``docs``: every figure's SVG at the path its page links, and each notebook replaced by
    its executed copy, outputs included. Zensical runs no hook, but it copies files and could
    render a notebook: what it then loses is what rendering alone would need to learn."""
    from scripts.hooks.execute import run

    for _, entry, _ in run(ROOT):
        shutil.copytree(entry, docs, dirs_exist_ok=True)  # a figure module's SVGs, or a notebook


def build_with_zensical(command: Path, workdir: Path) -> tuple[Path, str]:
    """Copy the project into ``workdir/project``, build it there with Zensical, and return the
    built folder and the build's output. Raises ``subprocess.CalledProcessError`` when the build
    fails."""
    project = workdir / "project"
    for name in PROJECT_FILES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(
                source,
                project / name,
                ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"),
            )
        else:
            project.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, project / name)
    add_executed_outputs(project / "docs")
    # The copy's own code on Python's path: mkdocs.yml lists its math extension by module.
    env = {**os.environ, "PYTHONPATH": str(project)}
    proc = subprocess.run(
        [str(command), "build", "-f", "mkdocs.yml"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return project / "site", proc.stdout + proc.stderr


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--reference",
        type=Path,
        metavar="DIR",
        help="an existing `mkdocs build` of this commit to compare with (default: build one)",
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 when a page loses anything")
    args = parser.parse_args(argv)
    try:
        command = ensure_zensical()
    except (subprocess.CalledProcessError, ValueError) as error:
        print(f"Zensical canary: could not install zensical=={ZENSICAL}: {error}")
        return 2
    with tempfile.TemporaryDirectory(prefix="zensical-canary-") as tmp:
        try:
            built, log = build_with_zensical(command, Path(tmp))
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:
            print(f"Zensical canary: zensical {ZENSICAL} build failed: {error}")
            return 2
        try:
            reference = site_to_check(args.reference, Path(tmp))
        except RuntimeError as error:
            print(f"Zensical canary: the MkDocs {error}")
            return 2
        pages = nav_pages()
        lines = report(reference, built, pages)
    said = " ".join(ln.strip() for ln in log.splitlines() if ln.strip())
    print(f"Zensical {ZENSICAL} built the site ({said})")
    for line in lines:
        print(f"  {line}")
    print(
        f"Zensical canary: {len(lines)} of {len(pages)} nav pages lose figures, formulas or "
        "notebook content against MkDocs"
    )
    return 1 if args.strict and lines else 0


if __name__ == "__main__":
    sys.exit(main())
