"""Build hook: say on each page which PyTorch releases its checks were verified on.

It reads the torch matrix's record (``snippets/data/torch_matrix.json``, written by
``python -m scripts.torch_matrix`` here or by the GitHub workflow ``torch-matrix.yml``) and adds

* in the line under the page's title (:mod:`scripts.hooks.page_facts`): the releases on which
  every check of the page passed and, where checks of the page changed since the matrix ran,
  "not yet run on 2.14.1 and 2.13.0: N checks changed since the last matrix run", linking to the
  list at the end of the page;
* after a block that fails on a covered release, a note at that block saying what it does
  there instead ("prints … where the page shows …", or the error it raises);
* at the end of the page, the list of the checks not yet run, or failing, per release.

The pinned release (the record's ``pinned``) is verified by the test suite itself: every commit's
``python -m pytest`` runs every check on it, so its checks count as passing whatever the record
says. The earlier releases count from the record only: a check passes there when the record has a
run of it as it is today (same fingerprint: code and expected output, comments and docstrings
left out, see :mod:`scripts.torch_matrix_plugin`) that passed.

A page's checks are its own code blocks (pytest-codeblocks ids ``docs/<page>.md::line N``), the
snippet files it includes (``tests/test_snippets.py::...[snippets/...]``), the property tests
that prove a claim id stated on the page (``scripts.claim_register.proofs_in_sources``), for a
notebook its nbmake and notebook tests, and for the API map ``tests/test_api_map.py``.

CPU kernel paths (the record's ``cpu_paths``: the pinned release run with kernels forced down,
``python -m scripts.torch_matrix --cpu-paths``) count from the record alone, by the same rule: the
line names how many paths passed every check of the page and links their table, and a check that
failed or is not yet run on a path is listed at the end of the page.

On ``docs/claims.md`` the comment ``<!-- torch-matrix: claims-by-release -->`` is replaced by a
table: one row per claim (the page's ``###`` sections), one column per release, with the same
rule, and ``<!-- torch-matrix: cpu-paths -->`` by the table of CPU path runs
(:func:`paths_table`). Plain HTML, no script. Without a record the pages get no line and the
build logs why (at info level).
"""

from __future__ import annotations

import html
import logging
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.pages import Page

_PROJECT = str(Path(__file__).resolve().parents[2])
if _PROJECT not in sys.path:
    sys.path.insert(0, _PROJECT)  # a test loads this file alone, by path
from scripts.hooks.page_facts import add_fact  # noqa: E402

log = logging.getLogger("mkdocs.hooks.torch_matrix")

CLAIMS_MARKER = "<!-- torch-matrix: claims-by-release -->"
PATHS_MARKER = "<!-- torch-matrix: cpu-paths -->"
#: Where the CPU paths' table is (docs/claims.md, under the heading "CPU kernel paths").
PATHS_PAGE, PATHS_ID = "claims.md", "cpu-kernel-paths"
#: The test that runs each snippet file (tests/test_snippets.py), parametrized by its path.
SNIPPET_TEST = "tests/test_snippets.py::test_snippet_runs_as_main_and_prints_its_golden_output"
#: How the matrix's plugin words a block whose printed output differs from the page's.
PRINTS = re.compile(r'prints "(?P<printed>.*)" where the page shows "(?P<shown>.*)"', re.DOTALL)
#: The id of the list at the end of a page that the line under the title links to.
DETAILS_ID = "torch-matrix-details"

_record: dict = {}
_root = Path(".")
_claim_tests: dict[str, list[str]] = {}  # page path (docs/...) -> property tests of its claims
_checks: dict[str, list] = {}  # src_uri -> the page's checks, computed once per build


@dataclass
class Check:
    """One test of a page: its id today, a label for readers, its fingerprint and the line of
    the page it starts on (``None`` for a test that is not a block of the page)."""

    test_id: str
    label: str
    fingerprint: str | None
    line: int | None = None


@dataclass
class Status:
    """How a page's checks stand on each release: ``passed`` lists the releases where all pass;
    ``pending`` and ``failed`` map a release to its checks not yet run there (as they are today)
    and to its failing checks with the recorded message."""

    checks: list[Check]
    passed: list[str]
    pending: dict[str, list[Check]]
    failed: dict[str, list[tuple[Check, str]]]
    paths_passed: list[str] = field(default_factory=list)
    paths_pending: dict[str, list[Check]] = field(default_factory=dict)
    paths_failed: dict[str, list[tuple[Check, str]]] = field(default_factory=dict)


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Load the record and the claim register (once per build, so ``mkdocs serve`` shows a
    refreshed record)."""
    global _record, _root, _claim_tests
    _root = Path(config.config_file_path).resolve().parent  # the project: pages and record
    _checks.clear()
    code = Path(__file__).resolve().parents[2]  # the repository holding scripts/
    if str(code) not in sys.path:
        sys.path.insert(0, str(code))
    from scripts.claim_register import claims_on_pages, proofs_in_sources
    from scripts.matrix_record import RECORD, load_record

    _record = load_record(_root / RECORD.relative_to(code))
    proofs = proofs_in_sources(_root)
    _claim_tests = {}
    for claim, places in claims_on_pages(_root).items():
        for page, _line in places:
            tests = _claim_tests.setdefault(page, [])
            tests.extend(t for t in proofs.get(claim, []) if t not in tests)
    if not _record.get("releases"):
        log.info("no torch matrix record: pages get no 'Verified' line "
                 "(python -m scripts.torch_matrix writes it)")
    return config


def checks_of(src_uri: str) -> list[Check]:
    """:func:`page_checks` of the page, computed once per build (the markdown and the content
    steps both need them)."""
    if src_uri not in _checks:
        _checks[src_uri] = page_checks(src_uri, _root)
    return _checks[src_uri]


def page_checks(src_uri: str, root: Path) -> list[Check]:
    """The checks of the page ``docs/<src_uri>`` as they are today (see the module docstring)."""
    from pytest_codeblocks.main import extract_from_file

    from scripts.markdown_model import includes_in
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
        snippets = sorted({inc.path for inc in includes_in(path.read_text(encoding="utf-8"))
                           if inc.path.startswith("snippets/") and inc.path.endswith(".py")})
        for snippet in snippets:
            checks.append(Check(f"{SNIPPET_TEST}[{snippet}]", f"snippet {snippet}",
                                file_fingerprint(root / snippet)))
    elif path.suffix == ".ipynb":
        checks.append(Check(f"{rel}::", f"notebook {Path(rel).name}", file_fingerprint(path)))
    for test_id in sorted(_claim_tests.get(rel, [])):
        checks.append(Check(test_id, f"property test {test_id.split('::', 1)[1]}", None))
    for test_id in _record_ids():
        if test_id.startswith("tests/test_api_map.py::") and stem == "api-map":
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
    has no run of the check as it is today (:func:`scripts.matrix_record.recorded`; a notebook's
    check, id ending in ``::``, is the nbmake test of that file)."""
    from scripts.matrix_record import recorded

    return recorded(check.test_id, check.fingerprint, tests)


def _releases() -> list[str]:
    """The record's releases, newest first."""
    from packaging.version import Version

    return sorted(_record.get("releases", {}), key=Version, reverse=True)


def _pinned() -> str | None:
    """The release the test suite runs on: the record's pin (its newest release if unnamed)."""
    releases = _releases()
    return _record.get("pinned") or (releases[0] if releases else None)


def _paths() -> list[str]:
    """The record's CPU path runs (``x86_64/avx2``), sorted."""
    return sorted(_record.get("cpu_paths", {}))


def status(checks: list[Check]) -> Status:
    """Where ``checks`` stand on each release of the record (see the module docstring) and on
    each CPU path run of the pinned release (from the record only: a run of the check as it is
    today that passed)."""
    result = Status(checks, [], {}, {})
    columns = [(r, _record["releases"][r]["tests"], result.passed, result.pending, result.failed)
               for r in _releases()]
    columns += [(p, _record["cpu_paths"][p]["tests"], result.paths_passed, result.paths_pending,
                 result.paths_failed) for p in _paths()]
    for name, tests, passed, pending, failed in columns:
        if name == _pinned():
            passed.append(name)
            continue
        for check in checks:
            found = outcome(check, tests)
            if found is None:
                pending.setdefault(name, []).append(check)
            elif found["outcome"] == "failed":
                failed.setdefault(name, []).append((check, found.get("message", "")))
        if name not in pending and name not in failed:
            passed.append(name)
    return result


def release_list(releases: list[str]) -> str:
    """``2.15.0``, ``2.14.1 and 2.13.0``, ``2.15.0, 2.14.1 and 2.13.0``."""
    if len(releases) <= 1:
        return "".join(releases)
    return f"{', '.join(releases[:-1])} and {releases[-1]}"


def _grouped(by_release: dict[str, list]) -> list[tuple[list[str], list]]:
    """Releases with the same list of items share one entry: ``[(releases, items)]``."""
    groups: dict[str, tuple[list[str], list]] = {}
    for release, items in by_release.items():
        key = repr([(i[0].test_id, i[1]) if isinstance(i, tuple) else i.test_id for i in items])
        groups.setdefault(key, ([], items))[0].append(release)
    return list(groups.values())


def _count(n: int) -> str:
    return f"{n} check{'s' if n != 1 else ''}"


def in_readers_terms(message: str) -> str:
    """A recorded failure, worded for a reader (HTML): what the block printed instead of the
    page's output, or the error it raised."""
    found = PRINTS.fullmatch(message)
    if found:
        return (f"prints <code>{html.escape(found['printed'])}</code> where the page shows "
                f"<code>{html.escape(found['shown'])}</code>")
    return f"fails with <code>{html.escape(message)}</code>"


def verified_line(state: Status, paths_href: str | None = None) -> str:
    """What the page's facts line says of the torch matrix (an HTML fragment,
    :func:`scripts.hooks.page_facts.add_fact`), kept short for a phone: how many checks passed on
    which releases and on how many CPU kernel paths (``paths_href`` links the paths' table), then
    a link per kind of difference to the list at the end of the page."""
    n = len(state.checks)
    parts = []
    if state.passed:
        on_paths = ""
        if state.paths_passed:
            count = len(state.paths_passed)
            label = f"{count} CPU path{'s' if count != 1 else ''}"
            if paths_href:
                label = f'<a href="{paths_href}">{label}</a>'
            on_paths = f" and {label}"
        parts.append(f"<strong>Verified</strong>: {_count(n)} on torch "
                     f"{release_list(state.passed)}{on_paths}")
    for releases, failures in _grouped(state.failed):
        parts.append(f'<a href="#{DETAILS_ID}">{len(failures)} '
                     f"differ{'s' if len(failures) == 1 else ''} on {release_list(releases)}</a>")
    for key, failures in sorted(state.paths_failed.items()):
        parts.append(f'<a href="#{DETAILS_ID}">{len(failures)} '
                     f"differ{'s' if len(failures) == 1 else ''} on CPU path {key}</a>")
    for releases, pending in _grouped(state.pending):
        parts.append(f'<a href="#{DETAILS_ID}">{len(pending)} not yet run on '
                     f"{release_list(releases)}</a>")
    if state.paths_pending:
        count = len(state.paths_pending)
        parts.append(f'<a href="#{DETAILS_ID}">not yet run on {count} CPU '
                     f"path{'s' if count != 1 else ''}</a>")
    return f'<span class="torch-matrix">{"; ".join(parts)}</span>'


def details_html(state: Status, sections, anchors) -> str:
    """The list at the end of a page: its checks not yet run, or failing, per release and per
    CPU path (HTML); empty when every check passed everywhere."""
    if not (state.pending or state.failed or state.paths_pending or state.paths_failed):
        return ""

    def where(check: Check) -> str:
        text = html.escape(check.label)
        section = _section_of(check.line, sections, anchors) if check.line else None
        if section:
            text += f' in <a href="{section[1]}">{html.escape(section[0])}</a>'
        return text

    items = []
    for releases, failures in _grouped(state.failed):
        for check, message in failures:
            items.append(f"<li>On PyTorch {release_list(releases)}, {where(check)} "
                         f"{in_readers_terms(message)}.</li>")
    for releases, pending in _grouped(state.pending):
        names = ", ".join(where(c) for c in pending)
        items.append(f"<li>Not yet run on PyTorch {release_list(releases)} (changed since the last "
                     f"matrix run): {names}.</li>")
    for key, failures in sorted(state.paths_failed.items()):
        for check, message in failures:
            items.append(f"<li>On CPU path {html.escape(key)}, {where(check)} "
                         f"{in_readers_terms(message)}.</li>")
    for key, pending in sorted(state.paths_pending.items()):
        names = ", ".join(where(c) for c in pending)
        items.append(f"<li>Not yet run on CPU path {html.escape(key)} (changed since its last "
                     f"run): {names}.</li>")
    dates = sorted({e["date"] for e in _record["releases"].values()})
    return (f'<div class="torch-matrix" id="{DETAILS_ID}"><p><strong>This page in the torch '
            f"matrix</strong> (every check runs on PyTorch {_pinned()} with each change; the "
            f"earlier releases run on CI's runners after it; matrix of {', '.join(dates)}, on a "
            f"CPU):</p><ul>{''.join(items)}</ul></div>")


def block_notes(markdown: str, offset: int, state: Status) -> str:
    """``markdown`` with a note after each block that fails on some release: after the block's
    closing fence, or after its expected output when the page shows one. ``offset`` is the number
    of lines of the page's file before ``markdown`` (its front matter)."""
    from scripts.markdown_model import fences_of

    notes: dict[int, list[tuple[list[str], str]]] = {}
    for releases, failures in _grouped(state.failed):
        for check, message in failures:
            if check.line is not None:
                notes.setdefault(check.line - offset, []).append((releases, message))
    if not notes:
        return markdown
    lines = markdown.splitlines()
    fences = fences_of(lines)
    insert: dict[int, list[str]] = {}
    for k, fence in enumerate(fences):
        if fence.line not in notes:
            continue
        last = fence
        if k + 1 < len(fences) and fences[k + 1].is_expected_output:
            last = fences[k + 1]
        text = []
        for releases, message in notes[fence.line]:
            text += ["", f'{fence.indent}<p class="torch-matrix-difference">On '
                         f"PyTorch {release_list(releases)} this block "
                         f"{in_readers_terms(message)}.</p>"]
        insert[last.end_line] = text
    out = []
    for number, line in enumerate(lines, start=1):
        out.append(line)
        out.extend(insert.get(number, []))
    return "\n".join(out) + "\n"


def _sections(markdown_path: Path) -> list[tuple[int, int, str]]:
    """``(line, level, title)`` of each ``##``/``###`` heading of a Markdown file."""
    from scripts.markdown_model import headings

    lines = markdown_path.read_text(encoding="utf-8").splitlines()
    return [(h.line, h.level, h.title) for h in headings(lines) if h.level in (2, 3)]


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


def claims_table(page: Page, checks: list[Check]) -> str:
    """The claims-by-release table (HTML): one row per ``###`` claim of the page holding a block,
    a cell per release: holds, differs (with what the block does there), or not yet run."""
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
        state = status(mine)
        cells = []
        for release in _releases():
            if release in state.failed:
                check, message = state.failed[release][0]
                cells.append(f"<td><strong>differs</strong>: {check.label} "
                             f"{in_readers_terms(message)}</td>")
            elif release in state.pending:
                cells.append("<td>not yet run</td>")
            else:
                cells.append("<td>holds</td>")
        rows.append(f"<tr><td>{name}</td>{''.join(cells)}</tr>")
    header = "".join(f"<th>PyTorch {r}</th>" for r in _releases())
    return (f"<table><thead><tr><th>Claim</th>{header}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files) -> str:
    """Put a note after each block that fails on a covered release."""
    if not _record.get("releases") or not page.file.src_uri.endswith(".md"):
        return markdown
    state = status(checks_of(page.file.src_uri))
    if not state.failed:
        return markdown
    source = Path(page.file.abs_src_path).read_text(encoding="utf-8")
    offset = len(source.splitlines()) - len(markdown.splitlines())  # the front matter's lines
    return block_notes(markdown, offset, state)


def paths_table() -> str:
    """The CPU paths' table (HTML): one row per run of the pinned release on a CPU path, with
    its settings, the CPU (model and the flags that decide kernels), the ATen capability, threads
    and oneDNN the run reported, its date and its outcome counts."""
    rows = []
    for key in _paths():
        run = _record["cpu_paths"][key]
        settings = " ".join(f"<code>{html.escape(k)}={html.escape(v)}</code>"
                            for k, v in run.get("settings", {}).items()) or "none"
        machine = run.get("machine", {})
        flags = ", ".join(machine.get("flags", [])) or "none of note"
        summary = run.get("summary", {})
        rows.append(
            f"<tr><td><code>{html.escape(key)}</code>: {html.escape(run.get('runs', ''))}</td>"
            f"<td>{settings}</td>"
            f"<td>{html.escape(machine.get('cpu', '?'))} (flags: {html.escape(flags)})</td>"
            f"<td>{html.escape(str(run.get('capability', '?')))}, {run.get('threads', '?')} "
            f"thread(s), oneDNN {'on' if run.get('onednn', True) else 'off'}</td>"
            f"<td>{html.escape(run.get('date', '?'))}: torch {html.escape(run.get('torch', '?'))},"
            f" {summary.get('passed', 0)} passed, {summary.get('failed', 0)} failed, "
            f"{summary.get('skipped', 0)} skipped</td></tr>")
    if not rows:
        return "<p>No CPU path has been run yet.</p>"
    return ("<table><thead><tr><th>Path</th><th>Settings</th><th>CPU</th><th>Kernels seen</th>"
            f"<th>Run</th></tr></thead><tbody>{''.join(rows)}</tbody></table>")


def on_page_content(html_: str, *, page: Page, config: MkDocsConfig, files) -> str:
    """Add what the matrix says of the page to the line under its title, and its list at the
    end; fill the claims table and the CPU paths' table."""
    if not _record.get("releases"):
        return html_.replace(CLAIMS_MARKER, "").replace(PATHS_MARKER, "")
    checks = checks_of(page.file.src_uri)
    if CLAIMS_MARKER in html_:
        html_ = html_.replace(CLAIMS_MARKER, claims_table(page, checks))
    if PATHS_MARKER in html_:
        html_ = html_.replace(PATHS_MARKER, paths_table())
    if not checks:
        return html_
    state = status(checks)
    sections = _sections(Path(page.file.abs_src_path)) if page.file.src_uri.endswith(".md") else []
    html_ += details_html(state, sections, _anchors(page))
    if "</h1>" not in html_:
        return html_
    target = files.get_file_from_path(PATHS_PAGE)
    href = None
    if target is not None:
        href = f"{target.url_relative_to(page.file)}#{PATHS_ID}"
    return add_fact(html_, verified_line(state, href))
