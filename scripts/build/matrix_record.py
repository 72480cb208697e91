"""The torch matrix's record, read, and the fingerprints it knows a check by.

:mod:`scripts.commands.torch_matrix` writes ``snippets/data/torch_matrix.json`` (it runs the checks
on each covered PyTorch release and CPU kernel path, :mod:`tests.torch_matrix_plugin` recording each
test); the build hook :mod:`scripts.build.matrix_notes` only reads it, through this module, so a
build imports neither the runner nor pytest. A fingerprint says which version of a test's material
was run, so a record can tell a block that changed since it was run from one that only moved:
comments, docstrings and whitespace leave it as it is, a changed number does not.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import re
from pathlib import Path

from scripts import ROOT
from scripts.build.markdown_blocks import code_blocks

#: The committed record of the last matrix run.
RECORD = ROOT / "snippets" / "data" / "torch_matrix.json"


#: Nodes whose body may open with a docstring.
_DOCSTRING_HOLDERS = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _tree_text(node) -> str:
    """A stable text of an AST: node types and field values, without positions or docstrings.
    Fields that are ``None`` or empty lists are left out, so Python releases that add such fields
    (3.12's ``type_params``) or print them differently (``ast.dump`` in 3.13) give the same text."""
    if isinstance(node, list):
        return "[" + ", ".join(map(_tree_text, node)) + "]"
    if not isinstance(node, ast.AST):
        return repr(node)
    fields = []
    for name, value in ast.iter_fields(node):
        if (name == "body" and isinstance(node, _DOCSTRING_HOLDERS)
                and ast.get_docstring(node, clean=False) is not None):
            value = value[1:]  # a docstring is documentation, not behaviour
        if value is not None and value != []:
            fields.append(f"{name}={_tree_text(value)}")
    return f"{type(node).__name__}({', '.join(fields)})"


@functools.lru_cache(maxsize=4096)
def code_meaning(source: str) -> str:
    """What a piece of Python does, as text that ignores comments, docstrings, blank lines,
    indentation style and line breaks inside brackets: :func:`_tree_text` of its syntax tree.
    Source that is not Python (a shell block, a notebook cell with a ``%magic``) is kept as it is,
    less trailing spaces and blank lines. Remembered by source text for the process, so a
    ``mkdocs serve`` rebuild parses only code that changed."""
    try:
        return _tree_text(ast.parse(source))
    except SyntaxError:
        return "\n".join(line.rstrip() for line in source.splitlines() if line.strip())


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:12]


def block_fingerprint(code: str, expected_output: str | None) -> str:
    """The fingerprint of a page's code block: 12 hex digits of SHA-256 over the meaning of its
    code (:func:`code_meaning`: a comment or a reflowed line leaves it unchanged, a changed
    number does not) and the exact output the page expects (``None``: no expected output)."""
    return _digest(code_meaning(code), expected_output if expected_output is not None else "\0")


def file_fingerprint(path: Path) -> str:
    """The fingerprint of a file a test runs, 12 hex digits of SHA-256: for a ``.py`` file the
    meaning of its code (:func:`code_meaning`) and the bytes of its ``.out`` golden file (a
    missing ``.out`` adds none); for a notebook the meaning of each code cell, in order (its
    prose and outputs do not change what runs); for any other file its bytes. Raises
    ``OSError`` when the file cannot be read."""
    if path.suffix == ".py":
        golden = path.with_suffix(".out")
        out = golden.read_text(encoding="utf-8") if golden.is_file() else "\0"
        return _digest(code_meaning(path.read_text(encoding="utf-8")), out)
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        return _digest(*(code_meaning("".join(cell["source"])) for cell in cells
                         if cell["cell_type"] == "code"))
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def recorded(test_id: str, fingerprint: str | None, tests: dict[str, dict]) -> dict | None:
    """The entry of ``tests`` (one release's record) that ran the test ``test_id`` as it is today:
    the same id with the same fingerprint (any entry when ``fingerprint`` is ``None``), or, for a
    page block (``docs/<page>.md::line N``) that the page's prose moved, an entry of the same page
    with the same fingerprint. An id ending in ``::`` (``docs/notebooks/x.ipynb::``) names the
    nbmake test of that file, whatever nbmake calls it. ``None`` when the record has no such
    run."""
    if test_id.endswith("::"):
        test_id = next((t for t in tests if t.startswith(test_id)), test_id)
    entry = tests.get(test_id)
    if entry is not None and (fingerprint is None or entry.get("fingerprint") == fingerprint):
        return entry
    page, sep, name = test_id.partition("::")
    if fingerprint is not None and page.endswith(".md") and sep and name.startswith("line "):
        for other, entry in tests.items():
            if other.startswith(page + "::") and entry.get("fingerprint") == fingerprint:
                return entry
    return None


def load_record(path: Path = RECORD) -> dict:
    """The committed record (``{"pinned": ..., "releases": {release: entry}}``), or an empty one
    when the file does not exist."""
    if not path.exists():
        return {"pinned": None, "releases": {}}
    return json.loads(path.read_text(encoding="utf-8"))


def cuda_fence_lines(text: str) -> set[int]:
    """The lines (1-based) of ``text`` (a page's Markdown) that open a fence marked for CUDA
    (``<!--pytest.mark.cuda-->``), read by the build's one Markdown reader
    (:func:`scripts.build.markdown_blocks.code_blocks`), as pytest-codeblocks marks blocks."""
    return {block.lineno for block in code_blocks(text) if block.cuda}


def machine_id(machine: dict) -> str:
    """A CPU machine's short name in the record: its CPU model in lower case, without the count
    of logical CPUs, ``(R)`` and ``(TM)``, then 6 hex digits of SHA-256 over its sorted kernel
    flags, e.g. ``amd-epyc-5d1c0e``. ``machine`` is a run's ``machine`` entry (``cpu``:
    ``"AMD EPYC, 2 logical CPUs"``, ``flags``: a list, absent in runs recorded before flags
    were)."""
    model = re.sub(r",\s*\d+ logical CPUs?$", "", machine.get("cpu", "unknown cpu"))
    slug = re.sub(r"[^a-z0-9]+", "-", re.sub(r"\((?:r|tm)\)", "", model.lower())).strip("-")
    flags = ",".join(sorted(machine.get("flags", [])))
    return f"{slug or 'cpu'}-{hashlib.sha256(flags.encode()).hexdigest()[:6]}"


def cpu_path_key(arch: str, machine: dict, path: str) -> str:
    """The record's key of a run of the CPU path ``path`` (``"avx2"``) on the machine
    ``machine`` (see :func:`machine_id`) of architecture ``arch`` (``platform.machine()``):
    ``x86_64/amd-epyc-5d1c0e/avx2``. Runs of two machines have two keys, side by side."""
    return f"{arch.lower()}/{machine_id(machine)}/{path}"


def machine_of(key: str) -> str:
    """The machine part of a CPU path run's key: ``x86_64/amd-epyc-5d1c0e`` of
    ``x86_64/amd-epyc-5d1c0e/avx2`` (a key of the older form ``x86_64/avx2``: ``x86_64``)."""
    return key.rsplit("/", 1)[0]


def migrate(record: dict) -> dict:
    """``record`` (or a part) with its CPU path runs keyed by machine (:func:`cpu_path_key`):
    a run keyed ``<arch>/<path>``, the form before machines were told apart, gets its machine
    from its own ``machine`` entry. Other keys and entries are left as they are; a new dict is
    returned (``record`` is not changed)."""
    paths = {}
    for key, run in record.get("cpu_paths", {}).items():
        if key.count("/") == 1:
            arch, path = key.split("/")
            key = cpu_path_key(arch, run.get("machine", {}), run.get("path", path))
        paths[key] = run
    return {**record, "cpu_paths": dict(sorted(paths.items()))} if "cpu_paths" in record else {
        **record}


def gpu_key(gpu: dict, torch_version: str) -> str:
    """The record's key of a run of the CUDA checks on the GPU ``gpu`` (its ``name``, e.g.
    ``"NVIDIA H200"``) with ``torch_version`` (``"2.11.0+cu130"``): ``nvidia-h200/2.11.0+cu130``.
    """
    slug = re.sub(r"[^a-z0-9]+", "-", gpu.get("name", "gpu").lower()).strip("-")
    return f"{slug or 'gpu'}/{torch_version}"
