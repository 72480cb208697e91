"""Build steps: what the torch matrix's record says of each page (CONTRIBUTING.md, "PyTorch
releases"): "Verified" facts, notes at failing blocks, a list at its end, the claims' tables; and
its record, read, and its checks' fingerprints (a comment leaves one as it is, a new number not)."""

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
from scripts.hooks.markdown_blocks import code_blocks, sections, toc_entries, tokens
from scripts.hooks.page_facts import add_fact

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
    """A test of a page: id, label for readers, fingerprint, line (a block's), ``cuda`` mark."""

    test_id: str
    label: str
    fingerprint: str | None
    line: int | None = None
    cuda: bool = False


@dataclass
class Status:
    """``checks`` on a kind of run: the runs passing all, per run those not yet run or failing
    (with the message), and on GPUs those that no run ran (``unrun``)."""

    checks: list[Check]
    passed: list[str]
    pending: dict[str, list[Check]]
    failed: dict[str, list[tuple[Check, str]]]
    unrun: list[Check] = field(default_factory=list)


def proofs_in_sources(root: Path) -> dict[str, dict[str, bool]]:
    """Claim id -> {``tests/<file>.py::<test>`` proving it: whether it is marked ``cuda``}, read
    from ``root/tests/test_claims_*.py`` without importing them. Raises ``SyntaxError``."""
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
    """The checks of the page ``docs/<src_uri>`` as they are today (CONTRIBUTING.md says which);
    ``claims``: the claim ids it states. Raises ``OSError`` when a file cannot be read."""
    rel, path = f"docs/{src_uri}", root / "docs" / src_uri
    checks, text = [], path.read_text(encoding="utf-8") if path.suffix == ".md" else ""
    for b in (b for b in code_blocks(text) if b.syntax in EXECUTED):
        fingerprint = block_fingerprint(b.code, b.expected_output)
        checks.append(
            Check(
                f"{rel}::line {b.lineno}",
                f"block at line {b.lineno}",
                fingerprint,
                b.lineno,
                b.cuda,
            )
        )
    includes = map(SnippetPreprocessor.RE_ALL_SNIPPETS.match, text.splitlines())
    for name in sorted(
        {
            m["snippet"][1:-1].partition(":")[0]
            for m in includes
            if m and m["snippet"] and not m["escape"]
        }
    ):
        if name.startswith("snippets/") and name.endswith(".py"):
            fingerprint = file_fingerprint(root / name)
            checks.append(Check(f"{SNIPPET_TEST}[{name}]", f"snippet {name}", fingerprint))
    if path.suffix == ".ipynb":
        checks.append(Check(f"{rel}::", f"notebook {path.name}", file_fingerprint(path)))
    proofs = proofs_in_sources(root)
    for test, cuda in sorted(
        {t: c for claim in claims for t, c in proofs.get(claim, {}).items()}.items()
    ):
        checks.append(Check(test, f"property test {test.split('::')[1]}", None, cuda=cuda))
    for test in sorted({t for run in record["releases"].values() for t in run["tests"]}):
        if test.startswith("tests/test_api_map.py::") and path.stem == "api-map":
            checks.append(Check(test, test.split("::")[1], None))
        elif test.startswith("tests/test_notebooks.py::") and test.endswith(f"[{rel}]"):
            checks.append(Check(test, test.split("::")[1], file_fingerprint(path)))
    return checks


def status(record: dict, checks: list[Check], kind: str = "releases") -> Status:
    """Where ``checks`` stand on the record's ``kind`` of run ("releases", the pin passing;
    "cpu_paths"; "gpus"): one marked ``cuda`` counts on GPU runs only, where a skip is no run."""
    gpu, names = kind == "gpus", sorted(record.get(kind, {}))
    result = Status([c for c in checks if c.cuda == gpu], [], {}, {})
    for name in sorted(names, key=Version, reverse=True) if kind == "releases" else names:
        for check in result.checks if name != record["pinned"] else []:
            found = recorded(check.test_id, check.fingerprint, record[kind][name]["tests"])
            if found is None or gpu and found["outcome"] == "skipped":
                result.pending.setdefault(name, []).append(check)
            elif found["outcome"] == "failed":
                result.failed.setdefault(name, []).append((check, found["message"]))
        if name not in result.pending and name not in result.failed:
            result.passed.append(name)
    if gpu and not result.passed:  # then every GPU run is in pending or failed
        runs = [*result.pending, *result.failed]
        result.unrun = [
            c for c in result.checks if all(c in result.pending.get(run, []) for run in runs)
        ]
    return result


def release_list(names: list[str]) -> str:
    """``2.15.0``, ``2.14.1 and 2.13.0``, ``2.15.0, 2.14.1 and 2.13.0``."""
    return f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1 else "".join(names)


def _count(n: int, noun: str = "check") -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"


def _named(record: dict, by_run: dict[str, list], kind: str) -> list[tuple[str, list]]:
    """``[(name, items)]`` of ``by_run``: releases with the same items share a name (``2.14.1 and
    2.13.0``); a CPU path run is named ``CPU path <key>``, a GPU run by its GPU and torch."""
    if kind == "releases":
        groups: dict[str, tuple[list[str], list]] = {}
        for release, items in by_run.items():
            groups.setdefault(repr(items), ([], items))[0].append(release)
        return [(release_list(names), items) for names, items in groups.values()]
    return [
        (
            f"CPU path {key}"
            if kind == "cpu_paths"
            else html.escape(
                f"GPU {record['gpus'][key]['gpu']['name']} (torch {record['gpus'][key]['torch']})"
            ),
            items,
        )
        for key, items in sorted(by_run.items())
    ]


def in_readers_terms(message: str) -> str:
    """A recorded failure for readers (HTML): what the block printed instead, or its error."""
    if found := PRINTS.fullmatch(message):
        return (
            f"prints <code>{html.escape(found['printed'])}</code> where the page shows "
            f"<code>{html.escape(found['shown'])}</code>"
        )
    return f"fails with <code>{html.escape(message)}</code>"


def page_matrix(
    record: dict, checks: list[Check], sections: list[tuple], href: str | None = None
) -> tuple[str, str]:
    """A page's part of its facts line (HTML: its checks passed on which releases, CPU paths,
    linked to ``href``, and GPUs; a link per kind of difference) and its list at the end, naming
    each check failing or not yet run, a block with its section (``sections``; ``""``: none)."""
    state, paths, gpus = kinds = [status(record, checks, kind) for kind in KINDS]
    link = (lambda text: f'<a href="{href}">{text}</a>') if href else str
    line = [
        f"<strong>Verified</strong>: {_count(len(state.checks))} on torch "
        f"{release_list(state.passed)}"
    ]
    if paths.passed:
        machines = _count(len({key.rsplit("/", 1)[0] for key in paths.passed}), "machine")
        line[0] += f" and {link(_count(len(paths.passed), 'CPU path') + ' of ' + machines)}"
    if gpus.checks and gpus.passed:
        runs = [record["gpus"][key] for key in gpus.passed]
        line.append(
            f"{_count(len(gpus.checks), 'CUDA check')} on torch "
            f"{release_list(sorted({run['torch'] for run in runs}))} and "
            f"{link(_count(len({run['gpu']['name'] for run in runs}), 'GPU'))}"
        )
    failed = [_named(record, of.failed, kind) for kind, of in zip(KINDS, kinds, strict=True)]
    links = [f"{len(f)} differ{'s' * (len(f) == 1)} on {name}" for name, f in failed[0] + failed[1]]
    pending = _named(record, state.pending, "releases")
    links += [f"{len(p)} not yet run on {name}" for name, p in pending]
    links += [f"not yet run on {_count(len(paths.pending), 'CPU path')}"] * bool(paths.pending)
    links += [f"{len(f)} differ{'s' * (len(f) == 1)} on {name}" for name, f in failed[2]]
    links += [f"{len(gpus.unrun)} not yet run on a GPU"] * bool(gpus.unrun)
    line += [f'<a href="#{DETAILS_ID}">{text}</a>' for text in links]

    def where(check: Check) -> str:
        *_, title, url = (
            [s for s in sections if check.line and s[0] < check.line] or [(None, None)]
        )[-1]
        label = html.escape(check.label)
        return f'{label} in <a href="{url}">{html.escape(title)}</a>' if url else label

    items = []
    for kind, of, fails in zip(KINDS, kinds, failed, strict=True):
        on = "PyTorch " if kind == "releases" else ""
        why = "the last matrix run" if kind == "releases" else "its last run"
        items += [
            f"<li>On {on}{name}, {where(check)} {in_readers_terms(message)}.</li>"
            for name, failures in fails
            for check, message in failures
        ]
        items += [
            f"<li>Not yet run on {on}{name} (changed since {why}): "
            f"{', '.join(map(where, pending))}.</li>"
            for name, pending in _named(record, of.pending, kind)
            if kind != "gpus"
        ]
    if gpus.unrun:
        items.append(
            f"<li>Not yet run on a GPU (marked for CUDA, skipped on a CPU): "
            f"{', '.join(map(where, gpus.unrun))}.</li>"
        )
    dates = ", ".join(sorted({run["date"] for run in record["releases"].values()}))
    details = (
        # Collapsed, as a note: the list of checks is for a maintainer, not the reader's length.
        # The id sits inside, so a link to it opens the box (a browser reveals a fragment's
        # closed <details> ancestor).
        f'<details class="torch-matrix"><summary>This page in the torch matrix</summary>'
        f'<div id="{DETAILS_ID}"><p>Every check runs on PyTorch {record["pinned"]} with each '
        f"change; the earlier releases run on CI's runners after it; matrix of {dates}, on "
        f"a CPU; the checks marked for CUDA run only on a GPU machine, with <code>python "
        f"-m scripts torch-matrix --cuda</code>.</p><ul>{''.join(items)}</ul></div></details>"
    )
    return f'<span class="torch-matrix">{"; ".join(line)}</span>', details if items else ""


def block_notes(markdown: str, source: str, state: Status) -> str:
    """``markdown`` with a note after each block failing on a release (after its output, if
    shown): the n-th block of ``source``, whose lines the checks give, is its n-th block."""
    blocks = [b for b in code_blocks(markdown) if b.syntax in EXECUTED]
    nth = {
        b.lineno: k for k, b in enumerate(b for b in code_blocks(source) if b.syntax in EXECUTED)
    }
    fences = [token.map for token in tokens(markdown) if token.type == "fence"]
    at = {start: k for k, (start, _) in enumerate(fences)}
    lines, notes = markdown.splitlines(), {}
    for releases, failures in _named({}, state.failed, "releases"):
        for check, message in failures:
            if nth.get(check.line, len(blocks)) < len(blocks):
                block = blocks[nth[check.line]]
                end = fences[at[block.lineno - 1] + (block.expected_output is not None)][1]
                fence = lines[block.lineno - 1]
                notes.setdefault(end, []).extend(
                    [
                        "",
                        fence[: len(fence) - len(fence.lstrip())]
                        + (
                            f'<p class="torch-matrix-difference">On PyTorch {releases} this block '
                            f"{in_readers_terms(message)}.</p>"
                        ),
                    ]
                )
    return (
        "\n".join(
            out
            for number, line in enumerate(lines, start=1)
            for out in (line, *notes.get(number, []))
        )
        + "\n"
        if notes
        else markdown
    )


def sections_of(text: str, page) -> list[tuple[int, int, str, str | None]]:
    """``(line, level, title, url)`` of each ``##``/``###`` heading of the page's Markdown
    ``text``, as its table of contents has it (no url when the two do not match)."""
    found = [(s.start + 1, s.level, s.heading) for s in sections(text) if s.level > 1]
    toc = [(html.unescape(e.title), e.url) for e in toc_entries(page.toc) if e.level in (2, 3)]
    if len(toc) != len(found):
        return [(line, level, title, None) for line, level, title in found]
    return [(line, level, *anchor) for (line, level, _), anchor in zip(found, toc, strict=True)]


def _table(head: list[str], rows: list[list[str]]) -> str:
    def row(cells: list[str], tag: str = "td") -> str:
        return "<tr>" + "".join(f"<{tag}>{cell}</{tag}>" for cell in cells) + "</tr>"

    body = "".join(map(row, rows))
    return f"<table><thead>{row(head, 'th')}</thead><tbody>{body}</tbody></table>"


def claims_table(record: dict, checks: list[Check], sections: list[tuple]) -> str:
    """The claims-by-release table (HTML): a row per ``###`` claim of ``sections`` holding a
    block, a cell per release: holds, differs (how), or not yet run."""
    rows, claims = [], [s for s in sections if s[1] == 3]
    releases = sorted(record["releases"], key=Version, reverse=True)
    for (start, _, title, url), (end, *_) in zip(claims, [*claims[1:], (10**9,)], strict=True):
        if mine := [c for c in checks if start < (c.line or 0) < end and not c.cuda]:
            state, cells = status(record, mine), []
            for release in releases:
                check, message = (state.failed.get(release) or [(None, "")])[0]
                cells.append(
                    f"<strong>differs</strong>: {check.label} {in_readers_terms(message)}"
                    if check
                    else "not yet run"
                    if release in state.pending
                    else "holds"
                )
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
    """Put a note after each block that fails on a covered release."""
    record = read_record(root := root_of(config))
    # A Chinese page (x.zh.md) shows its English page's blocks, in order: their checks and notes.
    uri = getattr(page.file, "norm_src_uri", None) or page.file.src_uri
    if not record.get("releases") or not uri.endswith(".md"):
        return markdown
    state = status(record, page_checks(root, record, uri))
    source = (root / "docs" / uri).read_text(encoding="utf-8")
    return block_notes(markdown, source, state) if state.failed else markdown


def on_page_content(html_: str, *, page, config, files) -> str:
    """Add the matrix's part to the page's facts line and its list at the end; fill the tables."""
    record = read_record(root := root_of(config))
    if not record.get("releases"):
        return html_.replace(CLAIMS_MARKER, "").replace(PATHS_MARKER, "")
    # A Chinese page (x.zh.md) has its English page's blocks, proven there: its English checks.
    uri = getattr(page.file, "norm_src_uri", None) or page.file.src_uri
    markdown = uri.endswith(".md")
    checks = page_checks(root, record, uri, CLAIM_ID.findall(html_) if markdown else [])
    sections = sections_of((root / "docs" / uri).read_text("utf-8"), page) if markdown else []
    if CLAIMS_MARKER in html_:
        html_ = html_.replace(CLAIMS_MARKER, claims_table(record, checks, sections))
    if PATHS_MARKER in html_:
        html_ = html_.replace(PATHS_MARKER, paths_table(record))
    if not checks:
        return html_
    target = files.get_file_from_path("claims.md")  # with the CPU paths' table
    href = f"{target.url_relative_to(page.file)}#cpu-kernel-paths" if target is not None else None
    line, details = page_matrix(record, checks, sections, href)
    return add_fact(html_ + details, line) if "</h1>" in html_ else html_ + details
