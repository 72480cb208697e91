"""Build hook: show on each page the PyTorch releases its code was verified on.

It reads the torch matrix's record (``snippets/data/torch_matrix.json``, written by
``python -m scripts.torch_matrix``) and, after each page's heading, adds

* a "Verified on" line naming the releases on which every check of the page passed, and
* for any other release, a warning that names each failing check (the block's line on the page,
  its section, with a link) and the first line of its error.

A page's checks are its own code blocks (pytest-codeblocks ids ``docs/<page>.md::line N``), the
snippet files it includes (``tests/test_snippets.py::...[snippets/...]``), for a notebook its
nbmake and notebook tests, for the API map ``tests/test_api_map.py``, and the property tests
``tests/test_claims_<page>.py`` named after it. A block is found in the record by its id, or, when
the page's prose moved it, by its fingerprint (code and expected output); a block that changed
since the matrix ran is reported as not yet verified, never as passing.

On ``docs/claims.md`` the comment ``<!-- torch-matrix: claims-by-release -->`` is replaced by a
table: one row per claim (the page's ``###`` sections), one column per release.

Plain HTML, no script. Without a record the pages get no line and the build logs why (at info
level: a missing record is ``tests/test_torch_matrix.py``'s business, not the build's).
"""

from __future__ import annotations

import html
import logging
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.pages import Page

log = logging.getLogger("mkdocs.hooks.torch_matrix")

CLAIMS_MARKER = "<!-- torch-matrix: claims-by-release -->"
#: A snippet include: by region (``file.py:name``) or by lines (``file.py:3:10``).
SNIPPET_INCLUDE = re.compile(r"""--8<--\s+["'](snippets/[\w/.-]+?\.py)(?::[\w:-]+)?["']""")
#: The test that runs each snippet file (tests/test_snippets.py), parametrized by its path.
SNIPPET_TEST = "tests/test_snippets.py::test_snippet_runs_as_main_and_prints_its_golden_output"
HEADING = re.compile(r"^(#{2,3})\s+(.+?)\s*$")

_record: dict = {}
_root = Path(".")


@dataclass
class Check:
    """One test of a page: its id today, a label for readers, its fingerprint and the line of
    the page it starts on (``None`` for a test that is not a block of the page)."""

    test_id: str
    label: str
    fingerprint: str | None
    line: int | None = None


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Load the record (once per build, so ``mkdocs serve`` shows a refreshed one)."""
    global _record, _root
    _root = Path(config.config_file_path).resolve().parent  # the project: pages and record
    code = Path(__file__).resolve().parents[2]  # the repository holding scripts/
    if str(code) not in sys.path:
        sys.path.insert(0, str(code))
    from scripts.torch_matrix import RECORD, ROOT, load_record

    _record = load_record(_root / RECORD.relative_to(ROOT))
    if not _record.get("releases"):
        log.info("no torch matrix record: pages get no 'Verified on' line "
                 "(python -m scripts.torch_matrix writes it)")
    return config


def page_checks(src_uri: str, root: Path) -> list[Check]:
    """The checks of the page ``docs/<src_uri>`` as they are today (see the module docstring)."""
    from pytest_codeblocks.main import extract_from_file

    from scripts.torch_matrix_plugin import block_fingerprint, file_fingerprint

    rel = f"docs/{src_uri}"
    path = root / rel
    checks: list[Check] = []
    stem = Path(src_uri).stem
    if path.suffix == ".md":
        for block in extract_from_file(path):
            if block.syntax in ("python", "sh", "bash"):  # as pytest-codeblocks collects
                checks.append(Check(f"{rel}::line {block.lineno}", f"block at line {block.lineno}",
                                    block_fingerprint(block.code, block.expected_output),
                                    block.lineno))
        snippets = sorted(set(SNIPPET_INCLUDE.findall(path.read_text(encoding="utf-8"))))
        for snippet in snippets:
            checks.append(Check(f"{SNIPPET_TEST}[{snippet}]", f"snippet {snippet}",
                                file_fingerprint(root / snippet)))
    elif path.suffix == ".ipynb":
        checks.append(Check(f"{rel}::", f"notebook {Path(rel).name}", file_fingerprint(path)))
    for test_id in _record_ids():
        if test_id.startswith("tests/test_api_map.py::") and stem == "api-map":
            checks.append(Check(test_id, test_id.split("::", 1)[1], None))
        elif test_id.startswith(f"tests/test_claims_{stem.replace('-', '_')}.py::"):
            checks.append(Check(test_id, test_id.split("::", 1)[1], None))
        elif test_id.startswith("tests/test_notebooks.py::") and test_id.endswith(f"[{rel}]"):
            checks.append(Check(test_id, test_id.split("::", 1)[1], file_fingerprint(path)))
    return checks


def _record_ids() -> list[str]:
    ids: set[str] = set()
    for entry in _record.get("releases", {}).values():
        ids.update(entry["tests"])
    return sorted(ids)


def outcome(check: Check, tests: dict[str, dict]) -> dict | None:
    """The recorded outcome of ``check`` in one release's ``tests``, or ``None`` when the record
    has no run of the check as it is today (:func:`scripts.torch_matrix.recorded`; a notebook's
    check, id ending in ``::``, is the nbmake test of that file)."""
    from scripts.torch_matrix import recorded

    return recorded(check.test_id, check.fingerprint, tests)


def _sections(markdown_path: Path) -> list[tuple[int, int, str]]:
    """``(line, level, title)`` of each ``##``/``###`` heading of a Markdown file (fences
    skipped)."""
    found, fence = [], None
    for n, line in enumerate(markdown_path.read_text(encoding="utf-8").splitlines(), start=1):
        stripped = line.lstrip()
        if stripped.startswith(("```", "~~~")):
            marker = stripped[:3]
            fence = None if fence == marker else (fence or marker)
            continue
        match = HEADING.match(line) if fence is None else None
        if match:
            found.append((n, len(match.group(1)), match.group(2)))
    return found


def _anchors(page: Page) -> list[tuple[int, str, str]]:
    """``(level, title, url)`` of the page's table of contents, in order."""
    out = []

    def walk(items):
        for item in items:
            out.append((item.level, html.unescape(item.title), item.url))
            walk(item.children)

    walk(page.toc.items)
    return [a for a in out if a[0] in (2, 3)]


def _section_of(line: int, sections, anchors) -> tuple[str, str] | None:
    """The title (as in the table of contents) and anchor of the section holding ``line``."""
    if len(sections) != len(anchors):
        return None
    before = [n for n, (start, _, _) in enumerate(sections) if start < line]
    if not before:
        return None
    _, title, url = anchors[before[-1]]
    return title, url


def _releases() -> dict[str, dict]:
    """The record's releases, newest first."""
    from packaging.version import Version

    runs = _record.get("releases", {})
    return {r: runs[r] for r in sorted(runs, key=Version, reverse=True)}


def _release_list(releases: list[str]) -> str:
    """``PyTorch 2.15.0``, ``PyTorch 2.14.1 and 2.13.0``, ``PyTorch 2.15.0, 2.14.1 and 2.13.0``."""
    if len(releases) == 1:
        return f"PyTorch {releases[0]}"
    return f"PyTorch {', '.join(releases[:-1])} and {releases[-1]}"


def verified_html(page: Page, checks: list[Check]) -> str:
    """The "Verified on" line and a warning for the releases where checks fail, one per set of
    failures (releases failing the same way share one), newest release first (HTML)."""
    releases = _releases()
    sections = _sections(Path(page.file.abs_src_path)) if page.file.src_uri.endswith(".md") else []
    anchors = _anchors(page)
    good, unverified = [], set()
    failing: dict[tuple, tuple[list, list[str]]] = {}  # (label, message)s -> failures, releases
    for release, entry in releases.items():
        failures, missing = [], False
        for check in checks:
            result = outcome(check, entry["tests"])
            if result is None:
                unverified.add(check.label)
                missing = True
            elif result["outcome"] == "failed":
                failures.append((check, result.get("message", "")))
        if not failures:
            if not missing:
                good.append(release)
            continue
        key = tuple((check.label, message) for check, message in failures)
        failing.setdefault(key, (failures, []))[1].append(release)
    parts = []
    for failures, where_failing in failing.values():
        items = []
        for check, message in failures:
            where = html.escape(check.label)
            section = _section_of(check.line, sections, anchors) if check.line else None
            if section:
                where += f' in <a href="{section[1]}">{html.escape(section[0])}</a>'
            items.append(f"<li>{where}: <code>{html.escape(message)}</code></li>")
        verb = "fails" if len(failures) == 1 else "fail"
        parts.append(
            '<div class="admonition warning torch-matrix">'
            f'<p class="admonition-title">On {_release_list(where_failing)}, {len(failures)} of '
            f"{len(checks)} checks of this page {verb}</p>"
            f"<ul>{''.join(items)}</ul></div>"
        )
    dates = sorted({e["date"] for e in releases.values()})
    if good:
        counted = f"all {len(checks)} checks" if len(checks) > 1 else "the one check"
        head = (f"<strong>Verified on {_release_list(good)}</strong>: {counted} of this page "
                f"pass{'es' if len(checks) == 1 else ''}")
    else:
        head = "<strong>Not verified on any covered PyTorch release</strong>"
    line = f'<p class="torch-matrix">{head} (torch matrix of {", ".join(dates)}, on a CPU).</p>'
    if unverified:
        line += ('<p class="torch-matrix">Not yet run in the torch matrix: '
                 f"{html.escape(', '.join(sorted(unverified)))}.</p>")
    return line + "".join(parts)


def claims_table(page: Page, checks: list[Check]) -> str:
    """The claims-by-release table (HTML): one row per ``###`` claim of the page holding a block,
    a mark per release: passes, fails (with the error as a title), or not yet run."""
    releases = list(_releases())
    sections = _sections(Path(page.file.abs_src_path))
    anchors = _anchors(page)
    rows = []
    claims = [(n, s) for n, s in enumerate(sections) if s[1] == 3]
    for k, (index, (start, _, title)) in enumerate(claims):
        end = claims[k + 1][1][0] if k + 1 < len(claims) else 10**9
        mine = [c for c in checks if c.line is not None and start < c.line < end]
        if not mine:
            continue
        name = html.escape(title)
        if len(sections) == len(anchors):
            name = f'<a href="{anchors[index][2]}">{html.escape(anchors[index][1])}</a>'
        cells = []
        for release in releases:
            results = [outcome(c, _record["releases"][release]["tests"]) for c in mine]
            if any(r is None for r in results):
                cells.append("<td>not yet run</td>")
            elif any(r["outcome"] == "failed" for r in results):
                why = next(r.get("message", "") for r in results if r["outcome"] == "failed")
                cells.append(f'<td><strong>fails</strong>: <code>{html.escape(why)}</code></td>')
            else:
                cells.append("<td>holds</td>")
        rows.append(f"<tr><td>{name}</td>{''.join(cells)}</tr>")
    header = "".join(f"<th>PyTorch {r}</th>" for r in releases)
    return (f"<table><thead><tr><th>Claim</th>{header}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


def on_page_content(html_: str, *, page: Page, config: MkDocsConfig, files) -> str:
    """Add the page's "Verified on" line after its heading; fill the claims table."""
    if not _record.get("releases"):
        return html_.replace(CLAIMS_MARKER, "")
    checks = page_checks(page.file.src_uri, _root)
    if CLAIMS_MARKER in html_:
        html_ = html_.replace(CLAIMS_MARKER, claims_table(page, checks))
    if not checks:
        return html_
    box = verified_html(page, checks)
    match = re.search(r"</h1>", html_)
    if match is None:
        return box + html_
    return html_[: match.end()] + box + html_[match.end():]
