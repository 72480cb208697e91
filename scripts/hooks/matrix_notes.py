"""Build steps: say on each page on which PyTorch releases, CPU paths and GPUs its checks passed
(CONTRIBUTING.md, "PyTorch releases").

From the torch matrix's record (``snippets/data/torch_matrix.json``, read by :func:`read_record`)
a page gets: in its facts line, as data that :mod:`scripts.hooks.page_facts` writes in the page's
language (:func:`matrix_facts`), the releases, the number of CPU paths and of machines on which
all its checks passed, and, for its checks marked ``cuda``, the GPUs on which all of them passed
or how many are not yet run on a GPU, with links to what differs or is not yet run; a note after
each block that fails on an earlier release (:func:`block_notes`); the list of those checks at
its end (:func:`page_matrix`). ``docs/claims.md`` gets the claims-by-release table
(:data:`CLAIMS_MARKER`) and the CPU paths' (:data:`PATHS_MARKER`).

The pinned release counts as passed (the test suite runs every check on it); a release or path
counts a check when the record has a passing run of it as it is today (same fingerprint:
:func:`block_fingerprint`, :func:`file_fingerprint`; a comment leaves one as it is, a new number
not). A page's checks (:func:`page_checks`): its blocks (as pytest-codeblocks collects them), the
snippets it includes, the property tests of the claim ids it states (:func:`proofs_in_sources`),
a notebook's nbmake and notebook tests, the API map's tests. A check marked ``cuda`` (a block
with ``<!--pytest.mark.cuda-->`` above it, a property test with ``@pytest.mark.cuda``) is skipped
on a CPU, so it counts only on the record's GPU runs (``gpus``), never on a release or a CPU path;
a GPU run counts it when it passed there as it is today (a skip is not a run). Without a record,
pages get nothing.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import html
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import Version
from pymdownx.snippets import SnippetPreprocessor

from scripts import root_of
from scripts.hooks import page_text
from scripts.hooks.markdown_blocks import code_blocks, sections, toc_entries, tokens
from scripts.hooks.page_facts import set_fact

CLAIMS_MARKER = "<!-- torch-matrix: claims-by-release -->"
PATHS_MARKER = "<!-- torch-matrix: cpu-paths -->"
SNIPPET_TEST = "tests/test_snippets.py::test_snippet_runs_as_main_and_prints_its_golden_output"
#: How tests/torch_matrix_plugin.py words a block that prints other output than the page's.
PRINTS = re.compile(r'prints "(?P<printed>.*)" where the page shows "(?P<shown>.*)"', re.DOTALL)
CLAIM_ID = re.compile(r'\sid="claim-(?P<id>[a-z0-9-]+)"')  # as attr_list writes { #claim-x }
DETAILS_ID = "torch-matrix-details"
EXECUTED = ("python", "sh", "bash")  # the blocks pytest-codeblocks runs
KINDS = ("releases", "cpu_paths", "gpus")  # the record's kinds of run
RECORD = Path("snippets", "data", "torch_matrix.json")  # in the project's folder
DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)  # have docstrings


def _tree_text(node) -> str:
    """An AST as text: node types and fields, less positions, docstrings and ``None`` or empty
    fields (which Python releases add or print differently)."""
    if isinstance(node, list):
        return "[" + ", ".join(map(_tree_text, node)) + "]"
    if not isinstance(node, ast.AST):
        return repr(node)
    fields = []
    for name, value in ast.iter_fields(node):
        if (
            name == "body"
            and isinstance(node, DOCUMENTED)
            and ast.get_docstring(node, clean=False) is not None
        ):
            value = value[1:]  # a docstring is documentation, not behaviour
        if value is not None and value != []:
            fields.append(f"{name}={_tree_text(value)}")
    return f"{type(node).__name__}({', '.join(fields)})"


@functools.lru_cache(maxsize=4096)
def code_meaning(source: str) -> str:
    """What ``source`` does: :func:`_tree_text` of its syntax tree; if not Python, its text."""
    try:
        return _tree_text(ast.parse(source))
    except SyntaxError:
        return "\n".join(line.rstrip() for line in source.splitlines() if line.strip())


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:12]


def block_fingerprint(code: str, expected_output: str | None) -> str:
    """A block's fingerprint: SHA-256 of its code's meaning and the output the page expects."""
    return _digest(code_meaning(code), expected_output if expected_output is not None else "\0")


def file_fingerprint(path: Path) -> str:
    """A file's fingerprint: of a ``.py`` file's meaning and ``.out`` golden file, a notebook's
    code cells' meanings, or another file's bytes. Raises ``OSError``."""
    if path.suffix == ".py":
        golden = path.with_suffix(".out")
        out = golden.read_text(encoding="utf-8") if golden.is_file() else "\0"
        return _digest(code_meaning(path.read_text(encoding="utf-8")), out)
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        return _digest(
            *(
                code_meaning("".join(cell["source"]))
                for cell in cells
                if cell["cell_type"] == "code"
            )
        )
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def recorded(test_id: str, fingerprint: str | None, tests: dict[str, dict]) -> dict | None:
    """The entry of ``tests`` (a run's) that ran ``test_id`` as it is today (same fingerprint,
    any for ``None``; a page's block may have moved; ``x.ipynb::``: its nbmake test) or ``None``."""
    if test_id.endswith("::"):
        test_id = next((t for t in tests if t.startswith(test_id)), test_id)
    entry = tests.get(test_id)
    if entry is not None and (fingerprint is None or entry.get("fingerprint") == fingerprint):
        return entry
    page, _, name = test_id.partition("::")
    if fingerprint is not None and page.endswith(".md") and name.startswith("line "):
        return next(
            (
                entry
                for other, entry in tests.items()
                if other.startswith(page + "::") and entry.get("fingerprint") == fingerprint
            ),
            None,
        )
    return None


@functools.lru_cache(maxsize=64)
def parsed(path: Path, mtime_ns: int, parse=json.loads):
    """``parse`` of ``path``'s text, kept by ``mtime_ns`` (``mkdocs serve`` reads an edit again)."""
    return parse(path.read_text(encoding="utf-8"))


def read_record(root: Path) -> dict:
    """The record of the project at ``root``; ``{}`` when it has none."""
    path = root / RECORD
    return parsed(path, path.stat().st_mtime_ns) if path.exists() else {}


@dataclass
class Check:
    """One test of a page: its id today (``test_id``), a ``label`` for readers (the data of the
    partials' ``check_label`` macro: ``{"kind": "block" | "snippet" | "property test" |
    "notebook" | "test", "name": ...}``), its ``fingerprint`` (``None``: any run counts), the
    ``line`` of the page its block starts on (``None`` for a test that is not a block of the
    page) and whether it is marked ``cuda`` (runs only on a GPU)."""

    test_id: str
    label: dict
    fingerprint: str | None
    line: int | None = None
    cuda: bool = False


@dataclass
class Status:
    """How ``checks`` stand on one kind of run of the record (the releases, the CPU paths or the
    GPU runs): ``checks`` are those that count there (the ``cuda`` ones on GPU runs only, the others
    elsewhere); ``passed`` lists the runs where all pass; ``pending`` and ``failed`` map a run to
    its checks not yet run there as they are today, and to its failing checks with the recorded
    message; ``unrun``, on GPU runs when none passed, the checks that no GPU run ran."""

    checks: list[Check]
    passed: list[str]
    pending: dict[str, list[Check]]
    failed: dict[str, list[tuple[Check, str]]]
    unrun: list[Check] = field(default_factory=list)


def proofs_in_sources(root: Path) -> dict[str, dict[str, bool]]:
    """Claim id -> {the test proving it (``tests/<file>.py::<function>``): whether it is marked
    ``cuda``}, read from the ``@proves(...)`` decorators of ``root/tests/test_claims_*.py`` without
    importing them (that would import torch and Hypothesis); each module read once per version of
    its file. Equals ``tests.claim_register.PROOFS`` once every test module is imported. Raises
    ``SyntaxError`` for a test module that does not parse."""
    found: dict[str, dict[str, bool]] = {}
    for module in sorted((root / "tests").glob("test_claims_*.py")):
        for claim, test, cuda in parsed(module, module.stat().st_mtime_ns, _proofs_in):
            found.setdefault(claim, {})[f"tests/{module.name}::{test}"] = cuda
    return found


def _proofs_in(source: str) -> list[tuple[str, str, bool]]:
    """(claim id, test, marked ``cuda``) of each ``@proves`` claim of a test module's source."""
    tree, found = ast.parse(source), []
    whole = any(
        isinstance(node, ast.Assign)
        and "pytestmark" in map(ast.unparse, node.targets)
        and "pytest.mark.cuda" in ast.unparse(node.value)
        for node in tree.body
    )
    for node in ast.walk(tree):
        marks = getattr(node, "decorator_list", [])
        cuda = whole or "pytest.mark.cuda" in map(ast.unparse, marks)
        for mark in (m for m in marks if getattr(getattr(m, "func", m), "id", "") == "proves"):
            found += [
                (arg.value, node.name, cuda) for arg in mark.args if isinstance(arg, ast.Constant)
            ]
    return found


def page_checks(root: Path, record: dict, src_uri: str, claims=()) -> list[Check]:
    """The checks of the page ``docs/<src_uri>`` as they are today (CONTRIBUTING.md says which):
    its executed blocks, the ``snippets/*.py`` files it includes, a notebook's own run, the
    property tests of ``claims`` (the claim ids it states), the API map's and the notebooks'
    tests that the record ran. Raises ``OSError`` when a file cannot be read."""
    rel = f"docs/{src_uri}"
    path = root / "docs" / src_uri
    text = ""
    if path.suffix == ".md":
        text = path.read_text(encoding="utf-8")
    checks = []
    for b in code_blocks(text):
        if b.syntax in EXECUTED:
            fingerprint = block_fingerprint(b.code, b.expected_output)
            label = {"kind": "block", "name": b.lineno}
            checks.append(Check(f"{rel}::line {b.lineno}", label, fingerprint, b.lineno, b.cuda))
    included = set()
    for line in text.splitlines():
        m = SnippetPreprocessor.RE_ALL_SNIPPETS.match(line)
        if m and m["snippet"] and not m["escape"]:
            included.add(m["snippet"][1:-1].partition(":")[0])  # the file, less its region
    for name in sorted(included):
        if name.startswith("snippets/") and name.endswith(".py"):
            label = {"kind": "snippet", "name": name}
            checks.append(Check(f"{SNIPPET_TEST}[{name}]", label, file_fingerprint(root / name)))
    if path.suffix == ".ipynb":
        label = {"kind": "notebook", "name": path.name}
        checks.append(Check(f"{rel}::", label, file_fingerprint(path)))
    proofs = proofs_in_sources(root)
    proving = {test: cuda for claim in claims for test, cuda in proofs.get(claim, {}).items()}
    for test, cuda in sorted(proving.items()):
        label = {"kind": "property test", "name": test.split("::")[1]}
        checks.append(Check(test, label, None, cuda=cuda))
    for test in sorted({t for run in record["releases"].values() for t in run["tests"]}):
        label = {"kind": "test", "name": test.split("::")[1]}
        if test.startswith("tests/test_api_map.py::") and path.stem == "api-map":
            checks.append(Check(test, label, None))
        elif test.startswith("tests/test_notebooks.py::") and test.endswith(f"[{rel}]"):
            checks.append(Check(test, label, file_fingerprint(path)))
    return checks


def status(record: dict, checks: list[Check], kind: str = "releases") -> Status:
    """Where ``checks`` stand on the record's ``kind`` of run: ``"releases"`` (newest first; the
    pinned release passes every check, as the test suite runs them all on it), ``"cpu_paths"``
    or ``"gpus"``. A check marked ``cuda`` counts on GPU runs only, the others everywhere else;
    on a GPU run a skipped check is not run."""
    on_gpus = kind == "gpus"
    names = sorted(record.get(kind, {}))
    if kind == "releases":
        names = sorted(names, key=Version, reverse=True)
    result = Status([c for c in checks if c.cuda == on_gpus], [], {}, {})
    for name in names:
        if name == record["pinned"]:
            result.passed.append(name)
            continue
        for check in result.checks:
            found = recorded(check.test_id, check.fingerprint, record[kind][name]["tests"])
            if found is None or (on_gpus and found["outcome"] == "skipped"):
                result.pending.setdefault(name, []).append(check)
            elif found["outcome"] == "failed":
                result.failed.setdefault(name, []).append((check, found["message"]))
        if name not in result.pending and name not in result.failed:
            result.passed.append(name)
    if on_gpus and not result.passed:  # then every GPU run is in pending or failed
        runs = [*result.pending, *result.failed]
        result.unrun = [
            c for c in result.checks if all(c in result.pending.get(run, []) for run in runs)
        ]
    return result


def _named(record: dict, by_run: dict[str, list], kind: str) -> list[tuple[dict, list]]:
    """``[(run, items)]`` of ``by_run`` (a run's name in the record -> its items), each run as
    the data the partials' ``run`` macro names: releases with the same items share one
    (``{"kind": "releases", "names": ["2.14.1", "2.13.0"]}``); a CPU path run is
    ``{"kind": "cpu_path", "key": ...}``, a GPU run ``{"kind": "gpu", "gpu": its name,
    "torch": its release}``."""
    if kind == "releases":
        groups: dict[str, tuple[list[str], list]] = {}
        for release, items in by_run.items():
            groups.setdefault(repr(items), ([], items))[0].append(release)
        return [({"kind": "releases", "names": names}, items) for names, items in groups.values()]
    named = []
    for key, items in sorted(by_run.items()):
        if kind == "cpu_paths":
            run = {"kind": "cpu_path", "key": key}
        else:
            entry = record["gpus"][key]
            run = {"kind": "gpu", "gpu": entry["gpu"]["name"], "torch": entry["torch"]}
        named.append((run, items))
    return named


def failure_data(message: str) -> dict:
    """A recorded failure's ``message`` as the data of the partials' ``failure`` macro: what the
    block printed instead of what the page shows (``{"kind": "prints", "printed", "shown"}``, as
    tests/torch_matrix_plugin.py words it), or its error (``{"kind": "fails", "message"}``)."""
    if found := PRINTS.fullmatch(message):
        return {"kind": "prints", "printed": found["printed"], "shown": found["shown"]}
    return {"kind": "fails", "message": message}


def matrix_facts(releases: Status, paths: Status, gpus: Status, record: dict) -> dict:
    """A page's part of its facts line, as the data of the partials' ``matrix`` macro: how many
    checks passed on which releases, on how many CPU paths of how many machines (``paths``,
    ``None`` when none passed), its CUDA checks on which releases and GPUs (``cuda``, ``None``
    unless a GPU run passed them all), and each difference, in this order: failures on releases
    and on CPU paths, releases that have not run a check as it is today, CPU paths that have
    not, failures on GPUs, CUDA checks that no GPU run ran."""
    facts = {
        "checks": len(releases.checks),
        "releases": releases.passed,
        "paths": None,
        "cuda": None,
        "details_id": DETAILS_ID,
        "differences": [],
    }
    if paths.passed:
        machines = {key.rsplit("/", 1)[0] for key in paths.passed}
        facts["paths"] = {"count": len(paths.passed), "machines": len(machines)}
    if gpus.checks and gpus.passed:
        runs = [record["gpus"][key] for key in gpus.passed]
        facts["cuda"] = {
            "checks": len(gpus.checks),
            "releases": sorted({run["torch"] for run in runs}),
            "gpus": len({run["gpu"]["name"] for run in runs}),
        }
    differences = facts["differences"]
    failed_somewhere = _named(record, releases.failed, "releases")
    failed_somewhere += _named(record, paths.failed, "cpu_paths")
    for run, failures in failed_somewhere:
        differences.append({"kind": "differs", "count": len(failures), "run": run})
    for run, pending in _named(record, releases.pending, "releases"):
        differences.append({"kind": "not run", "count": len(pending), "run": run})
    if paths.pending:
        differences.append({"kind": "paths not run", "count": len(paths.pending)})
    for run, failures in _named(record, gpus.failed, "gpus"):
        differences.append({"kind": "differs", "count": len(failures), "run": run})
    if gpus.unrun:
        differences.append({"kind": "not run on a GPU", "count": len(gpus.unrun)})
    return facts


def page_matrix(
    record: dict, checks: list[Check], sections: list[tuple], href: str | None = None
) -> tuple[dict, dict | None]:
    """A page's part of its facts line and its list at the end, as the data of the partials'
    ``matrix`` and ``details`` macros. The facts: :func:`matrix_facts`, with ``paths_href``,
    ``href``, the CPU paths' table, which the counts of CPU paths and GPUs link to. The list
    (``None`` when empty): each check failing or not yet run, on which run, a block named with
    the section it is in (``sections``, of :func:`sections_of`)."""
    releases = status(record, checks, "releases")
    paths = status(record, checks, "cpu_paths")
    gpus = status(record, checks, "gpus")
    facts = {**matrix_facts(releases, paths, gpus, record), "paths_href": href}

    def where(check: Check) -> dict:
        """The check's label, and the section its block is in, with its link if it has one."""
        above = [s for s in sections if check.line and s[0] < check.line]
        if not above or above[-1][3] is None:
            return {"label": check.label, "section": None, "url": None}
        *_, title, url = above[-1]
        return {"label": check.label, "section": title, "url": url}

    items = []
    for kind, of in zip(KINDS, (releases, paths, gpus), strict=True):
        for run, failures in _named(record, of.failed, kind):
            for check, message in failures:
                failure = failure_data(message)
                items.append(
                    {"kind": "differs", "run": run, "check": where(check), "failure": failure}
                )
        if kind == "gpus":
            continue  # a GPU run that skipped a check is listed below, once for all runs
        for run, pending in _named(record, of.pending, kind):
            items.append({"kind": "not run", "run": run, "checks": [where(c) for c in pending]})
    if gpus.unrun:
        items.append({"kind": "not run on a GPU", "checks": [where(c) for c in gpus.unrun]})
    if not items:
        return facts, None
    dates = sorted({run["date"] for run in record["releases"].values()})
    details = {"id": DETAILS_ID, "pinned": record["pinned"], "dates": dates, "items": items}
    return facts, details


def block_notes(markdown: str, source: str, state: Status, words) -> str:
    """``markdown`` with a note after each block failing on a release (after its output, if
    shown): the n-th block of ``source``, whose lines the checks give, is its n-th block.
    ``words``: the partial of the page's language (:func:`scripts.hooks.page_text.words`),
    whose ``block_note`` macro writes the note."""
    blocks = [b for b in code_blocks(markdown) if b.syntax in EXECUTED]
    executed_in_source = [b for b in code_blocks(source) if b.syntax in EXECUTED]
    nth = {b.lineno: k for k, b in enumerate(executed_in_source)}
    fences = [token.map for token in tokens(markdown) if token.type == "fence"]
    at = {start: k for k, (start, _) in enumerate(fences)}
    lines = markdown.splitlines()
    notes: dict[int, list[str]] = {}  # line number -> the lines to put after it
    for run, failures in _named({}, state.failed, "releases"):
        for check, message in failures:
            k = nth.get(check.line)
            if k is None or k >= len(blocks):
                continue  # the page has no such block (it changed since the run)
            block = blocks[k]
            fence = at[block.lineno - 1]
            if block.expected_output is not None:
                fence += 1  # the note goes after the output the page shows
            end = fences[fence][1]
            opening = lines[block.lineno - 1]
            indent = opening[: len(opening) - len(opening.lstrip())]
            note = words.block_note({"run": run, "failure": failure_data(message)})
            notes.setdefault(end, []).extend(["", indent + str(note)])
    if not notes:
        return markdown
    out = []
    for number, line in enumerate(lines, start=1):
        out.append(line)
        out.extend(notes.get(number, []))
    return "\n".join(out) + "\n"


def sections_of(text: str, page) -> list[tuple[int, int, str, str | None]]:
    """``(line, level, title, url)`` of each ``##``/``###`` heading of the page's Markdown
    ``text``, as its table of contents has it (no url when the two do not match)."""
    found = [(s.start + 1, s.level, s.heading) for s in sections(text) if s.level > 1]
    toc = [(html.unescape(e.title), e.url) for e in toc_entries(page.toc) if e.level in (2, 3)]
    if len(toc) != len(found):
        return [(line, level, title, None) for line, level, title in found]
    return [(line, level, *anchor) for (line, level, _), anchor in zip(found, toc, strict=True)]


def _table(head: list[str], rows: list[list[str]]) -> str:
    """A table of the record (HTML), out of search as the page's list of the record is: data
    about runs, which a search for an idea should not land on."""

    def row(cells: list[str], tag: str = "td") -> str:
        return "<tr>" + "".join(f"<{tag}>{cell}</{tag}>" for cell in cells) + "</tr>"

    body = "".join(map(row, rows))
    return (
        f"<table data-search-exclude><thead>{row(head, 'th')}</thead><tbody>{body}</tbody></table>"
    )


def claims_table(record: dict, checks: list[Check], sections: list[tuple]) -> str:
    """The claims-by-release table (HTML): a row per ``###`` claim of ``sections`` holding a
    block, a cell per release: holds, differs (how), or not yet run."""
    rows = []
    claims = [s for s in sections if s[1] == 3]
    releases = sorted(record["releases"], key=Version, reverse=True)
    english = page_text.words("en")  # the claims page's table is in English in both editions
    for (start, _, title, url), (end, *_) in zip(claims, [*claims[1:], (10**9,)], strict=True):
        if mine := [c for c in checks if start < (c.line or 0) < end and not c.cuda]:
            state = status(record, mine)
            cells = []
            for release in releases:
                if release in state.failed:
                    check, message = state.failed[release][0]
                    label = english.check_label(check.label)
                    failure = english.failure(failure_data(message))
                    cells.append(f"<strong>differs</strong>: {label} {failure}")
                elif release in state.pending:
                    cells.append("not yet run")
                else:
                    cells.append("holds")
            rows.append(
                [f'<a href="{url}">{html.escape(title)}</a>' if url else html.escape(title), *cells]
            )
    return _table(["Claim", *(f"PyTorch {r}" for r in releases)], rows)


def paths_table(record: dict) -> str:
    """The CPU paths' table, then the GPU runs' (HTML): a row per run with its settings, machine,
    what it reported, its date and outcome counts; a sentence for a kind with no run."""
    e = html.escape

    def ran(run: dict) -> str:
        s = run["summary"]
        return (
            f"{e(run['date'])}: torch {e(run['torch'])}, {s['passed']} passed, "
            f"{s['failed']} failed, {s['skipped']} skipped"
        )

    paths = [
        [
            f"<code>{e(key)}</code>: {e(run['runs'])}",
            " ".join(f"<code>{e(k)}={e(v)}</code>" for k, v in run["settings"].items()) or "none",
            f"{e(run['machine']['cpu'])} (flags: "
            f"{e(', '.join(run['machine']['flags']) or 'none of note')})",
            f"{e(str(run['capability']))}, {run['threads']} thread(s), "
            f"oneDNN {'on' if run['onednn'] else 'off'}",
            ran(run),
        ]
        for key, run in sorted(record.get("cpu_paths", {}).items())
    ]
    gpus = [
        [
            f"<code>{e(key)}</code>",
            f"{e(run['gpu']['name'])} (compute capability {e(str(run['gpu']['capability']))})",
            f"driver {e(str(run['gpu']['driver']))}, CUDA {e(str(run['gpu']['cuda']))}",
            ran(run)
            + "".join(
                f"; benchmark {e(name)} {e(b['outcome'])}"
                for name, b in sorted(run.get("benchmark", {}).items())
            ),
        ]
        for key, run in sorted(record.get("gpus", {}).items())
    ]
    return (
        _table(["Path", "Settings", "CPU", "Kernels seen", "Run"], paths)
        if paths
        else "<p>No CPU path has been run yet.</p>"
    ) + (
        _table(["GPU run", "GPU", "Driver and CUDA", "Run"], gpus)
        if gpus
        else "<p>No GPU run yet: the checks marked for CUDA are not yet run on a GPU "
        "(<code>python -m scripts torch-matrix --cuda</code> on a GPU machine).</p>"
    )


def on_page_markdown(markdown: str, *, page, config, files) -> str:
    """Put a note after each block that fails on a covered release (MkDocs event), in the page's
    language."""
    root = root_of(config)
    record = read_record(root)
    # A Chinese page (x.zh.md) shows its English page's blocks, in order: their checks and notes.
    uri = getattr(page.file, "norm_src_uri", None) or page.file.src_uri
    if not record.get("releases") or not uri.endswith(".md"):
        return markdown
    state = status(record, page_checks(root, record, uri))
    if not state.failed:
        return markdown
    source = (root / "docs" / uri).read_text(encoding="utf-8")
    words = page_text.words(page_text.language_of(page), config.theme.dirs)
    return block_notes(markdown, source, state, words)


def on_page_content(html_: str, *, page, config, files) -> str:
    """Put the matrix's part of the facts line on the page (:func:`page_matrix`;
    :func:`scripts.hooks.page_facts.set_fact`, ``matrix``), add its list at the end in the page's
    language, fill the claims' and CPU paths' tables (MkDocs event)."""
    root = root_of(config)
    record = read_record(root)
    if not record.get("releases"):
        return html_.replace(CLAIMS_MARKER, "").replace(PATHS_MARKER, "")
    # A Chinese page (x.zh.md) has its English page's blocks, proven there: its English checks.
    uri = getattr(page.file, "norm_src_uri", None) or page.file.src_uri
    claims, sections = [], []
    if uri.endswith(".md"):
        claims = CLAIM_ID.findall(html_)
        sections = sections_of((root / "docs" / uri).read_text("utf-8"), page)
    checks = page_checks(root, record, uri, claims)
    if CLAIMS_MARKER in html_:
        html_ = html_.replace(CLAIMS_MARKER, claims_table(record, checks, sections))
    if PATHS_MARKER in html_:
        html_ = html_.replace(PATHS_MARKER, paths_table(record))
    if not checks:
        return html_
    target = files.get_file_from_path("claims.md")  # with the CPU paths' table
    href = None
    if target is not None:
        href = f"{target.url_relative_to(page.file)}#cpu-kernel-paths"
    facts, details = page_matrix(record, checks, sections, href)
    if "</h1>" in html_:  # a page without a title has no facts line
        set_fact(page, "matrix", facts)
    if details is None:
        return html_
    words = page_text.words(page_text.language_of(page), config.theme.dirs)
    return html_ + str(words.details(details))
