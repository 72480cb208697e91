"""Build hook: say on each page on which PyTorch releases, CPU paths and GPUs its checks passed.

From the torch matrix's record (``snippets/data/torch_matrix.json``,
:mod:`scripts.build.matrix_record`) a page gets: in its facts line
(:mod:`scripts.build.page_facts`) the releases, the number of CPU paths and of machines on which
all its checks passed, and, for its checks marked ``cuda``, the GPUs on which all of them passed or
how many are not yet run on a GPU, with links to what differs or is not yet run; a note after each
block that fails on an earlier release; the list of those checks at its end.
``docs/claims.md`` gets the claims-by-release table (:data:`CLAIMS_MARKER`) and the CPU paths'
(:data:`PATHS_MARKER`). The pinned release counts as passed (the test suite runs every check on
it); a release or path counts a check when the record has a passing run of it as it is today
(same fingerprint). A page's checks: its blocks (as pytest-codeblocks collects them), the snippets
it includes, the property tests of the claim ids it states (:func:`proofs_in_sources`), a
notebook's nbmake and notebook tests, the API map's tests. A check marked ``cuda`` (a block with
``<!--pytest.mark.cuda-->`` above it, a property test with ``@pytest.mark.cuda``) is skipped on a
CPU, so it counts only on the record's GPU runs (``gpus``), never on a release or a CPU path; a
GPU run counts it when it passed there as it is today (a skip is not a run). Without a record,
pages get nothing.
"""

from __future__ import annotations

import ast
import functools
import html
import logging
import re
from dataclasses import dataclass, replace
from pathlib import Path

from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.pages import Page
from packaging.version import Version
from pymdownx.snippets import SnippetPreprocessor

from scripts import root_of
from scripts.build import matrix_record as record
from scripts.build.markdown_blocks import code_blocks
from scripts.build.page_facts import add_fact

log = logging.getLogger("mkdocs.hooks.torch_matrix")

CLAIMS_MARKER = "<!-- torch-matrix: claims-by-release -->"
PATHS_MARKER = "<!-- torch-matrix: cpu-paths -->"
#: Where the CPU paths' table is (docs/claims.md, under the heading "CPU kernel paths").
PATHS_PAGE, PATHS_ID = "claims.md", "cpu-kernel-paths"
#: The test that runs each snippet file (tests/test_snippets.py), parametrized by its path.
SNIPPET_TEST = "tests/test_snippets.py::test_snippet_runs_as_main_and_prints_its_golden_output"
#: How the matrix's plugin words a block whose printed output differs from the page's.
PRINTS = re.compile(r'prints "(?P<printed>.*)" where the page shows "(?P<shown>.*)"', re.DOTALL)
#: A claim id as the page's HTML carries it (``{ #claim-<id> }`` on a paragraph, attr_list).
CLAIM_ID = re.compile(r'\sid="claim-(?P<id>[a-z0-9-]+)"')
#: The id of the list at the end of a page that the facts line links to.
DETAILS_ID = "torch-matrix-details"
#: CommonMark with front matter: where a page's headings and a block's fences are.
MARKDOWN = MarkdownIt("commonmark").use(front_matter_plugin)

_record: dict = {}
_root = Path(".")
_proofs: dict[str, list[str]] = {}  # claim id -> its property tests
_cuda_tests: set[str] = set()  # property tests marked cuda


@dataclass
class Check:
    """One test of a page: its id today, a label for readers, its fingerprint, the line of the
    page it starts on (``None`` for a test that is not a block of the page), whether the page
    shows its expected output (a fenced block after it) and whether it is marked ``cuda`` (runs
    only on a GPU)."""

    test_id: str
    label: str
    fingerprint: str | None
    line: int | None = None
    shows_output: bool = False
    cuda: bool = False


@dataclass
class Status:
    """How checks stand on the releases (or the CPU paths, or the GPU runs) of the record:
    ``checks`` are those that count there (the ``cuda`` ones on GPU runs only, the others
    elsewhere); ``passed`` lists the runs where all pass; ``pending`` and ``failed`` map one to
    its checks not yet run there (as they are today) and to its failing checks with the recorded
    message."""

    checks: list[Check]
    passed: list[str]
    pending: dict[str, list[Check]]
    failed: dict[str, list[tuple[Check, str]]]


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Load the record and the claims' proofs (once per build, so ``mkdocs serve`` shows a
    refreshed record)."""
    global _record, _root, _proofs
    _root = root_of(config)  # the project: pages and record
    _source.cache_clear()
    _record = record.migrate(record.load_record(_root / record.RECORD.relative_to(record.ROOT)))
    _proofs = proofs_in_sources(_root)
    _cuda_tests = cuda_tests_in_sources(_root)
    if not _record.get("releases"):
        log.info("no torch matrix record: pages get no 'Verified' line "
                 "(python -m scripts torch-matrix writes it)")
    return config


def proofs_in_sources(root: Path) -> dict[str, list[str]]:
    """Claim id -> the tests proving it (``tests/<file>.py::<function>``), read from the
    ``@proves(...)`` decorators of ``root/tests/test_claims_*.py`` without importing them (that
    would import torch and Hypothesis). Equals :data:`tests.claim_register.PROOFS` once every
    test module is imported (``tests/test_claims_register.py`` checks that). Raises
    ``SyntaxError`` for a test module that does not parse."""
    found: dict[str, list[str]] = {}
    for module in sorted((root / "tests").glob("test_claims_*.py")):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            for decorator in getattr(node, "decorator_list", []):
                if getattr(getattr(decorator, "func", None), "id", None) == "proves":
                    for arg in decorator.args:  # string literals: ids without "claim-"
                        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                            found.setdefault(arg.value, []).append(
                                f"tests/{module.name}::{node.name}")
    return found


def cuda_tests_in_sources(root: Path) -> set[str]:
    """The tests of ``root/tests/test_claims_*.py`` marked ``cuda`` (``@pytest.mark.cuda``, or
    every test of a module whose ``pytestmark`` names it), as ``tests/<file>.py::<function>``,
    read without importing them. Raises ``SyntaxError`` for a test module that does not parse."""
    found = set()
    for module in sorted((root / "tests").glob("test_claims_*.py")):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        whole = any(isinstance(node, ast.Assign) and "pytestmark" in map(ast.unparse, node.targets)
                    and "pytest.mark.cuda" in ast.unparse(node.value) for node in tree.body)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                    whole and node.name.startswith("test") or
                    "pytest.mark.cuda" in map(ast.unparse, node.decorator_list)):
                found.add(f"tests/{module.name}::{node.name}")
    return found


@functools.cache
def _source(src_uri: str) -> str:
    """The Markdown of the page ``docs/<src_uri>``, read once per build."""
    return (_root / "docs" / src_uri).read_text(encoding="utf-8")


def page_checks(src_uri: str, claims: list[str] = ()) -> list[Check]:
    """The checks of the page ``docs/<src_uri>`` as they are today (see the module docstring);
    ``claims`` are the claim ids it states. Raises ``OSError`` when the page cannot be read."""
    rel = f"docs/{src_uri}"
    path = _root / rel
    checks: list[Check] = []
    if path.suffix == ".md":
        text = _source(src_uri)
        cuda = record.cuda_fence_lines(text)
        for block in code_blocks(text):
            if block.syntax in ("python", "sh", "bash"):  # as pytest-codeblocks collects
                checks.append(Check(f"{rel}::line {block.lineno}", f"block at line {block.lineno}",
                                    record.block_fingerprint(block.code, block.expected_output),
                                    block.lineno, block.expected_output is not None,
                                    block.lineno in cuda))
        # The files it includes, as pymdownx.snippets reads an include line (``--8<-- "path"``).
        includes = (SnippetPreprocessor.RE_ALL_SNIPPETS.match(ln) for ln in text.splitlines())
        included = {m["snippet"][1:-1].partition(":")[0] for m in includes
                    if m and m["snippet"] and not m["escape"]}
        for snippet in sorted(included):
            if snippet.startswith("snippets/") and snippet.endswith(".py"):
                    checks.append(Check(f"{SNIPPET_TEST}[{snippet}]", f"snippet {snippet}",
                                    record.file_fingerprint(_root / snippet)))
    elif path.suffix == ".ipynb":
        checks.append(Check(f"{rel}::", f"notebook {path.name}", record.file_fingerprint(path)))
    for test_id in sorted({t for claim in claims for t in _proofs.get(claim, [])}):
        checks.append(Check(test_id, f"property test {test_id.split('::', 1)[1]}", None,
                            cuda=test_id in _cuda_tests))
    ids = sorted({t for entry in _record.get("releases", {}).values() for t in entry["tests"]})
    for test_id in ids:
        if test_id.startswith("tests/test_api_map.py::") and path.stem == "api-map":
            checks.append(Check(test_id, test_id.split("::", 1)[1], None))
        elif test_id.startswith("tests/test_notebooks.py::") and test_id.endswith(f"[{rel}]"):
            checks.append(Check(test_id, test_id.split("::", 1)[1], record.file_fingerprint(path)))
    return checks


def _releases() -> list[str]:
    """The record's releases, newest first."""
    return sorted(_record.get("releases", {}), key=Version, reverse=True)


def _pinned() -> str | None:
    """The release the test suite runs on: the record's pin (its newest release if unnamed)."""
    releases = _releases()
    return _record.get("pinned") or (releases[0] if releases else None)


def status(checks: list[Check], runs: str = "releases") -> Status:
    """Where ``checks`` stand on each release of the record (``runs="releases"``, the pinned one
    passing), on each of its CPU path runs of the pinned release (``runs="cpu_paths"``), or on
    each of its GPU runs (``runs="gpus"``). Checks marked ``cuda`` count on GPU runs only, the
    others everywhere else; on a GPU run a skipped check is not yet run."""
    gpu = runs == "gpus"
    checks = [c for c in checks if c.cuda == gpu]
    result = Status(checks, [], {}, {})
    names = _releases() if runs == "releases" else sorted(_record.get(runs, {}))
    for name in names:
        if gpu or name != _pinned():
            tests = _record[runs][name]["tests"]
            for check in checks:
                found = record.recorded(check.test_id, check.fingerprint, tests)
                if found is None or (gpu and found["outcome"] == "skipped"):
                    result.pending.setdefault(name, []).append(check)
                elif found["outcome"] == "failed":
                    result.failed.setdefault(name, []).append((check, found.get("message", "")))
        if name not in result.pending and name not in result.failed:
            result.passed.append(name)
    return result


def not_on_a_gpu(gpus: Status) -> list[Check]:
    """The checks of ``gpus`` (:func:`status` with ``runs="gpus"``) that no GPU run of the
    record ran as they are today (passed or failed; a skip is not a run)."""
    runs = [run["tests"] for run in _record.get("gpus", {}).values()]
    return [c for c in gpus.checks if not any(
        (found := record.recorded(c.test_id, c.fingerprint, tests)) is not None
        and found["outcome"] in ("passed", "failed") for tests in runs)]


def gpu_name(key: str) -> str:
    """A GPU run's name for readers: ``NVIDIA H200 (torch 2.11.0+cu130)``."""
    run = _record.get("gpus", {}).get(key, {})
    return f"{run.get('gpu', {}).get('name', key)} (torch {run.get('torch', '?')})"


def release_list(releases: list[str]) -> str:
    """``2.15.0``, ``2.14.1 and 2.13.0``, ``2.15.0, 2.14.1 and 2.13.0``."""
    if len(releases) <= 1:
        return "".join(releases)
    return f"{', '.join(releases[:-1])} and {releases[-1]}"


def _grouped(by_release: dict[str, list]) -> list[tuple[list[str], list]]:
    """Releases with the same list of items share one entry: ``[(releases, items)]``."""
    groups: dict[str, tuple[list[str], list]] = {}
    for release, items in by_release.items():
        groups.setdefault(repr(items), ([], items))[0].append(release)
    return list(groups.values())


def _count(n: int, noun: str = "check") -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"


def in_readers_terms(message: str) -> str:
    """A recorded failure, worded for a reader (HTML): what the block printed instead of the
    page's output, or the error it raised."""
    found = PRINTS.fullmatch(message)
    if found:
        return (f"prints <code>{html.escape(found['printed'])}</code> where the page shows "
                f"<code>{html.escape(found['shown'])}</code>")
    return f"fails with <code>{html.escape(message)}</code>"


def verified_line(state: Status, paths: Status, paths_href: str | None = None,
                  gpus: Status | None = None) -> str:
    """What the page's facts line says of the torch matrix (an HTML fragment,
    :func:`scripts.build.page_facts.add_fact`), kept short for a phone: how many checks passed on
    which releases (``state``) and on how many CPU kernel paths of how many machines (``paths``;
    ``paths_href`` links their table); for a page with checks marked ``cuda`` (``gpus``), how
    many passed on which torch and how many GPUs, or how many are not yet run on a GPU; then a
    link per kind of difference to the list at the end of the page."""
    gpus = gpus or Status([], [], {}, {})
    parts, links = [], []
    if state.passed:
        machines = len({record.machine_of(key) for key in paths.passed})
        on_paths = (f"{_count(len(paths.passed), 'CPU path')} of {_count(machines, 'machine')}"
                    if paths.passed else "")
        if on_paths and paths_href:
            on_paths = f'<a href="{paths_href}">{on_paths}</a>'
        parts.append(f"<strong>Verified</strong>: {_count(len(state.checks))} on torch "
                     f"{release_list(state.passed)}{' and ' + on_paths if on_paths else ''}")
    if gpus.checks and gpus.passed:
        torches = sorted({_record["gpus"][k].get("torch", "?") for k in gpus.passed})
        cards = len({_record["gpus"][k].get("gpu", {}).get("name") for k in gpus.passed})
        on_gpus = _count(cards, "GPU")
        if paths_href:
            on_gpus = f'<a href="{paths_href}">{on_gpus}</a>'
        verified = "" if parts else "<strong>Verified</strong>: "
        parts.append(f"{verified}{_count(len(gpus.checks), 'CUDA check')} on torch "
                     f"{release_list(torches)} and {on_gpus}")
    for releases, failures in _grouped(state.failed):
        links.append(f"{len(failures)} differ{'s' * (len(failures) == 1)} on "
                     f"{release_list(releases)}")
    for key, failures in sorted(paths.failed.items()):
        links.append(f"{len(failures)} differ{'s' * (len(failures) == 1)} on CPU path {key}")
    for releases, pending in _grouped(state.pending):
        links.append(f"{len(pending)} not yet run on {release_list(releases)}")
    if paths.pending:
        links.append(f"not yet run on {_count(len(paths.pending), 'CPU path')}")
    for key, failures in sorted(gpus.failed.items()):
        links.append(f"{len(failures)} differ{'s' * (len(failures) == 1)} on GPU "
                     f"{html.escape(gpu_name(key))}")
    unrun = not_on_a_gpu(gpus) if not gpus.passed else []
    if unrun:
        links.append(f"{len(unrun)} not yet run on a GPU")
    parts += [f'<a href="#{DETAILS_ID}">{text}</a>' for text in links]
    return f'<span class="torch-matrix">{"; ".join(parts)}</span>'


def details_html(state: Status, paths: Status,
                 sections: list[tuple[int, int, str, str | None]],
                 gpus: Status | None = None) -> str:
    """The list at the end of a page: its checks not yet run, or failing, per release
    (``state``), per CPU path (``paths``) and per GPU run (``gpus``; the checks marked ``cuda``
    that no GPU run passed are listed as not yet run on a GPU) as HTML, each block named with
    the section holding it (``sections``, :func:`sections_of`); empty when every check passed
    everywhere."""
    gpus = gpus or Status([], [], {}, {})
    unrun = not_on_a_gpu(gpus) if not gpus.passed else []
    if not (state.pending or state.failed or paths.pending or paths.failed or gpus.failed
            or unrun):
        return ""

    def where(check: Check) -> str:
        before = [s for s in sections if check.line and s[0] < check.line]
        if not before or before[-1][3] is None:
            return html.escape(check.label)
        _, _, title, url = before[-1]
        return f'{html.escape(check.label)} in <a href="{url}">{html.escape(title)}</a>'

    def names(checks: list[Check]) -> str:
        return ", ".join(map(where, checks))

    items = []
    for releases, failures in _grouped(state.failed):
        items += [f"<li>On PyTorch {release_list(releases)}, {where(check)} "
                  f"{in_readers_terms(message)}.</li>" for check, message in failures]
    for releases, pending in _grouped(state.pending):
        items.append(f"<li>Not yet run on PyTorch {release_list(releases)} (changed since the "
                     f"last matrix run): {names(pending)}.</li>")
    for key, failures in sorted(paths.failed.items()):
        items += [f"<li>On CPU path {html.escape(key)}, {where(check)} "
                  f"{in_readers_terms(message)}.</li>" for check, message in failures]
    for key, pending in sorted(paths.pending.items()):
        items.append(f"<li>Not yet run on CPU path {html.escape(key)} (changed since its last "
                     f"run): {names(pending)}.</li>")
    for key, failures in sorted(gpus.failed.items()):
        items += [f"<li>On GPU {html.escape(gpu_name(key))}, {where(check)} "
                  f"{in_readers_terms(message)}.</li>" for check, message in failures]
    if unrun:
        items.append(f"<li>Not yet run on a GPU (marked for CUDA, skipped on a CPU): "
                     f"{names(unrun)}.</li>")
    dates = sorted({e["date"] for e in _record["releases"].values()})
    return (f'<div class="torch-matrix" id="{DETAILS_ID}"><p><strong>This page in the torch '
            f"matrix</strong> (every check runs on PyTorch {_pinned()} with each change; the "
            f"earlier releases run on CI's runners after it; matrix of {', '.join(dates)}, on a "
            f"CPU; the checks marked for CUDA run only on a GPU machine, with "
            f"<code>python -m scripts torch-matrix --cuda</code>):</p>"
            f"<ul>{''.join(items)}</ul></div>")


def translated_state(state: Status, english: str, translation: str) -> Status:
    """``state`` of an English page's checks with each block's line moved to the same block of
    its ``translation`` (the n-th executed block of one is the n-th of the other: a Chinese page
    repeats its English page's blocks in order). A block the translation lacks gets no line."""
    def lines(text: str) -> list[int]:
        return [b.lineno for b in code_blocks(text) if b.syntax in ("python", "sh", "bash")]

    moved = dict(zip(lines(english), lines(translation), strict=False))
    failed = {key: [(replace(check, line=moved.get(check.line)), message)
                    for check, message in failures] for key, failures in state.failed.items()}
    return Status(state.checks, state.passed, state.pending, failed)


def block_notes(markdown: str, offset: int, state: Status) -> str:
    """``markdown`` with a note after each block that fails on some release: after the block's
    closing fence, or after its expected output when the page shows one. ``offset`` is the number
    of lines of the page's file before ``markdown`` (its front matter)."""
    lines = markdown.splitlines()
    insert: dict[int, list[str]] = {}
    for releases, failures in _grouped(state.failed):
        for check, message in failures:
            if check.line is None:
                continue
            first = lines[check.line - offset - 1]
            indent = first[:len(first) - len(first.lstrip())]
            # The block and the rest of the page, out of its tab or admonition, as CommonMark.
            rest = "\n".join(ln[min(len(indent), len(ln) - len(ln.lstrip())):]
                             for ln in lines[check.line - offset - 1:])
            fences = [t for t in MARKDOWN.parse(rest) if t.type == "fence"]
            end = check.line - offset - 1 + fences[int(check.shows_output)].map[1]
            insert.setdefault(end, []).extend([
                "", f'{indent}<p class="torch-matrix-difference">On PyTorch '
                    f"{release_list(releases)} this block {in_readers_terms(message)}.</p>"])
    if not insert:
        return markdown
    out = []
    for number, line in enumerate(lines, start=1):
        out += [line, *insert.get(number, [])]
    return "\n".join(out) + "\n"


def sections_of(text: str, page: Page) -> list[tuple[int, int, str, str | None]]:
    """``(line, level, title, url)`` of each ``##``/``###`` heading of the page's Markdown
    ``text`` (1-based line of its file): title and anchor as the page's table of contents has
    them, or, when the two do not list as many such headings, the title as written and no
    anchor."""
    tokens = MARKDOWN.parse(text)
    found = [(t.map[0] + 1, int(t.tag[1]), tokens[k + 1].content) for k, t in enumerate(tokens)
             if t.type == "heading_open" and t.level == 0 and t.tag in ("h2", "h3")]
    toc, todo = [], list(page.toc.items)
    while todo:  # depth first, in order
        item = todo.pop(0)
        todo[:0] = item.children
        if item.level in (2, 3):
            toc.append((html.unescape(item.title), item.url))
    if len(toc) != len(found):
        return [(line, level, title, None) for line, level, title in found]
    return [(line, level, *anchor) for (line, level, _), anchor in zip(found, toc, strict=True)]


def claims_table(checks: list[Check], sections: list[tuple[int, int, str, str | None]]) -> str:
    """The claims-by-release table (HTML): one row per ``###`` claim of ``sections``
    (:func:`sections_of`) holding a block, a cell per release: holds, differs (with what the
    block does there), or not yet run."""
    rows = []
    claims = [s for s in sections if s[1] == 3]
    for k, (start, _, title, url) in enumerate(claims):
        end = claims[k + 1][0] if k + 1 < len(claims) else 10**9
        mine = [c for c in checks if c.line is not None and start < c.line < end and not c.cuda]
        if not mine:
            continue
        name = f'<a href="{url}">{html.escape(title)}</a>' if url else html.escape(title)
        state = status(mine)
        cells = []
        for release in _releases():
            if release in state.failed:
                check, message = state.failed[release][0]
                cells.append(f"<td><strong>differs</strong>: {check.label} "
                             f"{in_readers_terms(message)}</td>")
            else:
                cells.append("<td>not yet run</td>" if release in state.pending
                             else "<td>holds</td>")
        rows.append(f"<tr><td>{name}</td>{''.join(cells)}</tr>")
    header = "".join(f"<th>PyTorch {r}</th>" for r in _releases())
    return (f"<table><thead><tr><th>Claim</th>{header}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


def paths_table() -> str:
    """The CPU paths' table (HTML): one row per run of the pinned release on a CPU path, with
    its settings, the CPU (model and the flags that decide kernels), the ATen capability, threads
    and oneDNN the run reported, its date and its outcome counts."""
    rows = []
    for key in sorted(_record.get("cpu_paths", {})):
        run = _record["cpu_paths"][key]
        settings = " ".join(f"<code>{html.escape(k)}={html.escape(v)}</code>"
                            for k, v in run.get("settings", {}).items()) or "none"
        machine, summary = run.get("machine", {}), run.get("summary", {})
        flags = ", ".join(machine.get("flags", [])) or "none of note"
        rows.append(
            f"<tr><td><code>{html.escape(key)}</code>: {html.escape(run.get('runs', ''))}</td>"
            f"<td>{settings}</td>"
            f"<td>{html.escape(machine.get('cpu', '?'))} (flags: {html.escape(flags)})</td>"
            f"<td>{html.escape(str(run.get('capability', '?')))}, {run.get('threads', '?')} "
            f"thread(s), oneDNN {'on' if run.get('onednn', True) else 'off'}</td>"
            f"<td>{html.escape(run.get('date', '?'))}: torch {html.escape(run.get('torch', '?'))},"
            f" {summary.get('passed', 0)} passed, {summary.get('failed', 0)} failed, "
            f"{summary.get('skipped', 0)} skipped</td></tr>")
    table = ("<table><thead><tr><th>Path</th><th>Settings</th><th>CPU</th><th>Kernels seen</th>"
             f"<th>Run</th></tr></thead><tbody>{''.join(rows)}</tbody></table>" if rows
             else "<p>No CPU path has been run yet.</p>")
    return table + gpus_table()


def gpus_table() -> str:
    """The GPU runs' table (HTML): one row per run of the checks marked ``cuda``, with the GPU's
    name, driver, CUDA version and compute capability, the torch release that ran, the date and
    the outcome counts (and the benchmark's CUDA runs); a sentence when there is none."""
    rows = []
    for key in sorted(_record.get("gpus", {})):
        run = _record["gpus"][key]
        gpu, summary = run.get("gpu", {}), run.get("summary", {})
        bench = "".join(f"; benchmark {html.escape(name)} {html.escape(b.get('outcome', '?'))}"
                        for name, b in sorted(run.get("benchmark", {}).items()))
        rows.append(
            f"<tr><td><code>{html.escape(key)}</code></td>"
            f"<td>{html.escape(gpu.get('name', '?'))} (compute capability "
            f"{html.escape(str(gpu.get('capability', '?')))})</td>"
            f"<td>driver {html.escape(str(gpu.get('driver', '?')))}, CUDA "
            f"{html.escape(str(gpu.get('cuda', '?')))}</td>"
            f"<td>{html.escape(run.get('date', '?'))}: torch {html.escape(run.get('torch', '?'))},"
            f" {summary.get('passed', 0)} passed, {summary.get('failed', 0)} failed, "
            f"{summary.get('skipped', 0)} skipped{bench}</td></tr>")
    if not rows:
        return ("<p>No GPU run yet: the checks marked for CUDA are not yet run on a GPU "
                "(<code>python -m scripts torch-matrix --cuda</code> on a GPU machine).</p>")
    return ("<table><thead><tr><th>GPU run</th><th>GPU</th><th>Driver and CUDA</th>"
            f"<th>Run</th></tr></thead><tbody>{''.join(rows)}</tbody></table>")


def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files) -> str:
    """Put a note after each block that fails on a covered release."""
    uri = page.file.src_uri
    if not _record.get("releases") or not uri.endswith(".md"):
        return markdown
    # A Chinese page (x.zh.md) shows its English page's blocks, in order: their checks and notes.
    english = getattr(page.file, "norm_src_uri", None) or uri
    state = status(page_checks(english))
    if not state.failed:
        return markdown
    if english != uri:
        state = translated_state(state, _source(english), _source(uri))
    offset = len(_source(uri).splitlines()) - len(markdown.splitlines())  # the front matter's
    return block_notes(markdown, offset, state)


def on_page_content(html_: str, *, page: Page, config: MkDocsConfig, files) -> str:
    """Add what the matrix says of the page to its facts line, and its list at the end; fill the
    claims table and the CPU paths' table."""
    if not _record.get("releases"):
        return html_.replace(CLAIMS_MARKER, "").replace(PATHS_MARKER, "")
    # A Chinese page (x.zh.md) has its English page's blocks, proven there: its English checks.
    uri = getattr(page.file, "norm_src_uri", None) or page.file.src_uri
    markdown = uri.endswith(".md")
    checks = page_checks(uri, CLAIM_ID.findall(html_) if markdown else [])
    sections = sections_of(_source(uri), page) if markdown else []
    if CLAIMS_MARKER in html_:
        html_ = html_.replace(CLAIMS_MARKER, claims_table(checks, sections))
    if PATHS_MARKER in html_:
        html_ = html_.replace(PATHS_MARKER, paths_table())
    if not checks:
        return html_
    state, paths, gpus = status(checks), status(checks, "cpu_paths"), status(checks, "gpus")
    html_ += details_html(state, paths, sections, gpus)
    if "</h1>" not in html_:
        return html_
    target = files.get_file_from_path(PATHS_PAGE)
    href = f"{target.url_relative_to(page.file)}#{PATHS_ID}" if target is not None else None
    return add_fact(html_, verified_line(state, paths, href, gpus))
