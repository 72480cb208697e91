"""The tests' model of a page's Markdown, on top of the build's reader (markdown-it-py,
``scripts/hooks/markdown_blocks.py``).

A page (``docs/*.md``, and ``README.md``) is read into:

* **fences** (:class:`Fence`, :func:`read_fences`), found by the build's reader (markdown-it-py,
  ``scripts/hooks/markdown_blocks.py``): info string, code, the
  marker above it (an expected-output marker, a skip with its reason), the way pytest-codeblocks
  0.18 reads them. It executes only fences whose info string is exactly ``python`` (plus ``sh``
  and ``bash``, run in a shell) and silently skips ```` ```py ````, ```` ```python title="…" ````
  and tilde fences; the fence guard (``tests/test_fences.py``) names each one by file and line;
* **includes** (:class:`Include`, :func:`include_of`, :func:`includes_in`,
  :func:`included_text`): ``pymdownx.snippets`` lines, ``--8<-- "path"``, ``"path:region"`` or
  ``"path:start:end"``, in double or single quotes, and the named regions of snippet files;
* **headings** (:class:`Heading`, :func:`headings`) outside fences, and their HTML ids as the
  site's ``toc`` extension makes them (:func:`heading_ids`);
* **claim ids** (:data:`CLAIM_ANCHOR`, :func:`claim_ids`): ``{ #claim-<id> }`` on a paragraph;
* **exercises** (:class:`Exercise`, :func:`read_exercises`): an article's ``## Exercises`` section.

Nothing else in the repository parses fences, includes or headings of a page with a pattern of
its own (``tests/test_markdown_model.py`` checks that).
"""

from __future__ import annotations

import functools
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import markdown

from scripts import ROOT
from scripts.commands.refresh_outputs import markdown_files, run_block  # noqa: F401 (re-exported)
from scripts.commands.translations import TOC_EXTENSIONS
from scripts.hooks.markdown_blocks import tokens

#: Markdown files whose blocks are executed by ``pytest`` (see ``testpaths`` in pyproject.toml).
PYTHON_LIKE = re.compile(r"^\{?\s*\.?(python3?|py3?|pycon|ipython3?)\b", re.IGNORECASE)
SHELL_LIKE = re.compile(r"^(sh|bash|zsh|shell)\b", re.IGNORECASE)
#: A skip that states its reason, as pytest-codeblocks reads it: <!--pytest.mark.skip(reason="…")-->
SKIP_WITH_REASON = re.compile(
    r"<!--\s*pytest\.mark\.skip(if)?\(.*reason\s*=\s*(['\"])(?P<reason>.+?)\2.*\)\s*-->"
)
EXPECTED_OUTPUT = re.compile(
    r"<!--[-\s]*pytest-codeblocks:expected-output(-ignore-whitespace)?\s*-->"
)
#: A ``pymdownx.snippets`` include line: ``--8<-- "spec"`` or ``--8<-- 'spec'``, alone on its line.
INCLUDE = re.compile(r"^\s*-{1,}8<-{1,}\s+(['\"])(?P<spec>[^'\"]+)\1\s*$")
#: A region marker inside a snippet file: ``# --8<-- [start:name]`` / ``[end:name]``.
REGION_MARKER = re.compile(r"-{1,}8<-{1,}\s+\[(?P<edge>start|end):(?P<name>[^\]]+)\]")
#: A heading line (ATX style): ``#`` to ``######``, the title, an optional ``{ attr list }``.
HEADING = re.compile(r"^(?P<hashes>#{1,6})\s+(?P<title>.+?)(?:\s*\{(?P<attrs>[^}]*)\})?\s*$")
#: ``{ #claim-<id> }`` (or ``{: #claim-<id> }``) at the end of a paragraph: group ``id`` is the part
#: after ``claim-``, lower-case words joined by hyphens.
CLAIM_ANCHOR = re.compile(r"\{:?\s*#claim-(?P<id>[a-z0-9]+(?:-[a-z0-9]+)*)\s*\}")


@dataclass
class Fence:
    """One fenced block of a Markdown file.

    ``line`` is the 1-based line of the opening fence; ``info`` is the text after the fence
    characters (``python``, ``python title="x"``, ``console``); ``body`` holds the lines between
    the fences (without line ends), with the fence's own indentation removed as pytest-codeblocks
    removes it (a block inside a content tab is indented); ``indent`` is that indentation;
    ``before`` is the last non-blank line above the opening fence.
    """

    path: Path
    line: int
    fence: str
    info: str
    body: list[str]
    before: str
    end_line: int
    indent: str = ""

    @property
    def executed_by_codeblocks(self) -> bool:
        """True when pytest-codeblocks 0.18 collects this block as Python."""
        return self.fence.startswith("`") and self.info == "python"

    @property
    def python_like(self) -> bool:
        return bool(PYTHON_LIKE.match(self.info))

    @property
    def shell_like(self) -> bool:
        return bool(SHELL_LIKE.match(self.info))

    @property
    def skip_reason(self) -> str | None:
        m = SKIP_WITH_REASON.search(self.before)
        return m["reason"].strip() if m and m["reason"].strip() else None

    @property
    def is_expected_output(self) -> bool:
        return bool(EXPECTED_OUTPUT.search(self.before))

    @property
    def snippet_paths(self) -> list[str] | None:
        """The files this block includes with ``--8<--``, or None if it holds anything else."""
        lines = [ln for ln in self.body if ln.strip()]
        paths = []
        for ln in lines:
            include = include_of(ln)
            if include is None:
                return None
            paths.append(include.path)
        return paths or None

    def where(self) -> str:
        try:
            rel = self.path.relative_to(ROOT)
        except ValueError:
            rel = self.path
        return f"{rel}:{self.line}"


def read_fences(path: Path) -> list[Fence]:
    """All fenced blocks of ``path``, in order. Raises ``ValueError`` on an unclosed fence."""
    return fences_of(path.read_text(encoding="utf-8").splitlines(), path)


def fences_of(lines: list[str], path: Path = Path("<markdown>")) -> list[Fence]:
    """All fenced blocks of a Markdown text given as ``lines`` (without line ends), in order, as
    the build's reader finds them (markdown-it-py, containers flattened:
    :func:`scripts.hooks.markdown_blocks.tokens`); ``path`` only names the text in errors and in
    each :class:`Fence`. Raises ``ValueError`` on an unclosed fence."""
    fences: list[Fence] = []
    for token in tokens("\n".join(lines) + "\n"):
        if token.type != "fence":
            continue
        start, end = token.map
        opening = lines[start]
        indent = opening[: len(opening) - len(opening.lstrip(" \t"))]
        info = opening.strip()[len(token.markup) :].strip(" \t")
        closing = lines[end - 1].strip() if end - 1 > start else ""
        if not (closing.startswith(token.markup) and not closing.strip(token.markup[0])):
            raise ValueError(f"{path}:{start + 1}: fence {token.markup}{info} is never closed")
        body = [
            line[min(len(indent), len(line) - len(line.lstrip(" "))) :]
            for line in lines[start + 1 : end - 1]
        ]
        before = next((line.strip() for line in reversed(lines[:start]) if line.strip()), "")
        fences.append(Fence(path, start + 1, token.markup, info, body, before, end, indent))
    return fences


def fenced_lines(lines: list[str]) -> set[int]:
    """The 1-based numbers of the lines that belong to a fenced block, fences included."""
    return {n for f in fences_of(lines) for n in range(f.line, f.end_line + 1)}


@dataclass(frozen=True)
class Include:
    """One ``pymdownx.snippets`` include: ``spec`` as written (``path``, ``path:region`` or
    ``path:start:end``), split into the file ``path`` and what is taken of it: ``region`` (a
    name), or ``start``/``end`` (1-based inclusive lines, ``None`` for the file's first or last),
    or the whole file when both are unset."""

    spec: str
    path: str
    region: str | None = None
    start: int | None = None
    end: int | None = None


def include_of(line: str) -> Include | None:
    """The :class:`Include` that ``line`` is, or ``None``."""
    m = INCLUDE.match(line)
    return None if m is None else include_spec(m["spec"])


def include_spec(spec: str) -> Include:
    """The :class:`Include` of an include's ``spec`` (what stands between the quotes)."""
    path, _, selector = spec.partition(":")
    if not selector:
        return Include(spec, path)
    lines = re.fullmatch(r"(\d*):(\d*)", selector)
    if lines:
        return Include(
            spec,
            path,
            start=int(lines[1]) if lines[1] else None,
            end=int(lines[2]) if lines[2] else None,
        )
    return Include(spec, path, region=selector)


def includes_in(text: str) -> list[Include]:
    """Every include line of a page's text, in order (inside fences, where the site puts them)."""
    return [inc for line in text.splitlines() if (inc := include_of(line)) is not None]


def included_text(include: Include, root: Path = ROOT) -> str:
    """What ``include`` puts on the page: the region's code (dedented, markers removed, as
    ``dedent_subsections`` does), lines ``start`` to ``end``, or the whole file (text). Raises
    ``ValueError`` when the region is not in the file, ``OSError`` when the file is missing."""
    text = (root / include.path).read_text(encoding="utf-8")
    if include.region is None and include.start is None and include.end is None:
        return text
    if include.region is None:
        lines = text.splitlines(keepends=True)
        return "".join(lines[(include.start or 1) - 1 : include.end or len(lines)])
    inside, body, found = False, [], False
    for line in text.splitlines():
        marker = REGION_MARKER.search(line)
        if marker and marker["name"] == include.region:
            if marker["edge"] == "start":
                inside, found = True, True
            else:
                inside = False
            continue
        if inside and not REGION_MARKER.search(line):
            body.append(line)
    if not found:
        raise ValueError(f"{include.path} has no region {include.region!r}")
    return textwrap.dedent("\n".join(body))


@dataclass(frozen=True)
class Heading:
    """A heading outside fences: its 1-based ``line``, ``level`` (1-6), ``title`` as written
    (without an attribute list) and the ``attrs`` of a trailing ``{ … }`` (``""`` for none)."""

    line: int
    level: int
    title: str
    attrs: str = ""


def headings(lines: list[str]) -> list[Heading]:
    """The page's ATX headings, in order, leaving out lines inside fenced blocks."""
    inside = fenced_lines(lines)
    found = []
    for n, line in enumerate(lines, start=1):
        m = HEADING.match(line) if n not in inside else None
        if m:
            found.append(Heading(n, len(m["hashes"]), m["title"], (m["attrs"] or "").strip()))
    return found


@functools.cache
def heading_ids(text: str) -> tuple[tuple[int, str, str], ...]:
    """``(level, id, title)`` of every heading of the Markdown ``text``, in order, as the
    site's ``toc`` extension makes them (Python-Markdown with :data:`TOC_EXTENSIONS`).
    Remembered per text: a page does not change during a run."""
    md = markdown.Markdown(extensions=TOC_EXTENSIONS)
    md.convert(text)
    found: list[tuple[int, str, str]] = []

    def walk(tokens):
        for token in tokens:
            found.append((token["level"], token["id"], token["name"]))
            walk(token["children"])

    walk(md.toc_tokens)
    return tuple(found)


def claim_ids(lines: list[str]) -> list[tuple[str, int]]:
    """``(claim id, 1-based line)`` of each ``{ #claim-<id> }`` outside fenced blocks."""
    inside = fenced_lines(lines)
    return [
        (m["id"], n)
        for n, line in enumerate(lines, start=1)
        if n not in inside
        for m in CLAIM_ANCHOR.finditer(line)
    ]


#: An article's exercises: the section, each exercise's heading, its solution, another box.
EXERCISES_TITLE = "Exercises"
EXERCISE = re.compile(r"^Exercise (?P<n>\d+): (?P<title>\S.*?)$")
SOLUTION = re.compile(r'^\?\?\? success "Solution"\s*$')
ADMONITION_LIKE = re.compile(r"^(\?\?\?\+?|!!!)\s")
#: How a statement names its kind (``*Predict the output.*``).
KIND = re.compile(r"^\*(?P<kind>[A-Z][a-z-]+(?: [a-z-]+)*)\.\*")
FOOTNOTE = re.compile(r"^\[\^[^\]]+\]:")


@dataclass
class Exercise:
    """One ``### Exercise N: title`` and what lies under it (1-based line numbers)."""

    number: int
    title: str
    line: int
    end: int  # last line of the exercise, inclusive
    kind: str | None = None  # "Predict the output", "Find the bug", "Warm-up", …
    solutions: list[tuple[int, int]] = field(default_factory=list)  # (first, last) line
    other_admonitions: list[int] = field(default_factory=list)


def read_exercises(lines: list[str]) -> tuple[list[Exercise], list[str]]:
    """The exercises of a page's ``## Exercises`` section, and the structural problems found
    (no such section, one that is not last, a ``###`` heading that is not an exercise, an
    exercise without its kind, numbers out of order), one message each with its line."""
    problems: list[str] = []
    found = headings(lines)
    sections = [h for h in found if h.level == 2]
    starts = [h.line - 1 for h in sections if h.title == EXERCISES_TITLE]
    if not starts:
        return [], ["no '## Exercises' section"]
    if len(starts) > 1:
        problems.append("more than one '## Exercises' section")
    start = starts[0]
    later = [h.line - 1 for h in sections if h.line - 1 > start]
    if later:
        problems.append(
            f"line {later[0] + 1}: '{lines[later[0]]}' follows '## Exercises'; the exercises must "
            "be the page's last section (only footnotes may follow)"
        )
    end = later[0] if later else len(lines)
    footnotes = [i for i in range(start, end) if FOOTNOTE.match(lines[i])]
    end = footnotes[0] if footnotes else end
    subheadings = {h.line - 1: h for h in found if h.level == 3 and start < h.line - 1 < end}

    result: list[Exercise] = []
    for i in range(start + 1, end):
        heading = subheadings.get(i)
        m = EXERCISE.match(heading.title) if heading else None
        if m:
            if result:
                result[-1].end = i
            result.append(Exercise(int(m["n"]), m["title"], i + 1, end))
            first_text = next((ln for ln in lines[i + 1 : end] if ln.strip()), "")
            if k := KIND.match(first_text):
                result[-1].kind = k["kind"]
            else:
                problems.append(
                    f"line {i + 1}: Exercise {m['n']}'s statement does not open with its kind "
                    "in italics ('*Warm-up.*', '*Predict the output.*', '*Find the bug.*', …)"
                )
        elif heading:
            problems.append(
                f"line {i + 1}: '{lines[i]}' is not an exercise heading ('### Exercise N: title')"
            )
        elif SOLUTION.match(lines[i]) or ADMONITION_LIKE.match(lines[i]):
            if not result:
                problems.append(f"line {i + 1}: admonition before the first exercise heading")
                continue
            ex = result[-1]
            if not SOLUTION.match(lines[i]):
                ex.other_admonitions.append(i + 1)
                continue
            last = i
            for j in range(i + 1, ex.end):
                if lines[j].strip() and not lines[j].startswith("    "):
                    break
                if lines[j].strip():
                    last = j
            ex.solutions.append((i + 1, last + 1))
    numbers = [ex.number for ex in result]
    if numbers != list(range(1, len(numbers) + 1)):
        problems.append(f"exercises are numbered {numbers}, not 1, 2, 3, …")
    return result, problems
