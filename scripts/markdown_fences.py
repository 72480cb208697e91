"""Reading the fenced code blocks of the site's Markdown the way pytest-codeblocks does.

Used by ``tests/test_fences.py`` (the guard against blocks that nothing executes) and by
``scripts/refresh_outputs.py`` (rewrites expected outputs after a deliberate change).

pytest-codeblocks 0.18 executes only fences whose info string is exactly ``python`` (plus ``sh``
and ``bash``, which it runs in a shell). It silently skips ```` ```py ````, ```` ```python
title="…" ````, ```` ```python hl_lines="…" ```` and tilde fences. This module finds all of them
so that the guard can name each one by file and line.
"""

from __future__ import annotations

import contextlib
import io
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


#: Markdown files whose blocks are executed by ``pytest`` (see ``testpaths`` in pyproject.toml).
def markdown_files() -> list[Path]:
    """Every Markdown file under ``docs/`` plus ``README.md``, sorted, as absolute paths."""
    return sorted(ROOT.glob("docs/**/*.md")) + [ROOT / "README.md"]


FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\n]*?)[ \t]*$")
PYTHON_LIKE = re.compile(r"^\{?\s*\.?(python3?|py3?|pycon|ipython3?)\b", re.IGNORECASE)
SHELL_LIKE = re.compile(r"^(sh|bash|zsh|shell)\b", re.IGNORECASE)
#: A skip that states its reason, as pytest-codeblocks reads it: <!--pytest.mark.skip(reason="…")-->
SKIP_WITH_REASON = re.compile(
    r"<!--\s*pytest\.mark\.skip(if)?\(.*reason\s*=\s*(['\"])(?P<reason>.+?)\2.*\)\s*-->"
)
EXPECTED_OUTPUT = re.compile(
    r"<!--[-\s]*pytest-codeblocks:expected-output(-ignore-whitespace)?\s*-->"
)
SNIPPET_LINE = re.compile(r"^\s*-{1,}8<-{1,}\s+(['\"])(?P<path>[^'\"]+)\1\s*$")


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
            m = SNIPPET_LINE.match(ln)
            if not m:
                return None
            paths.append(m["path"].split(":")[0])
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
    """All fenced blocks of a Markdown text given as ``lines`` (without line ends), in order;
    ``path`` only names the text in errors and in each :class:`Fence`. Raises ``ValueError`` on
    an unclosed fence."""
    fences: list[Fence] = []
    before = ""
    i = 0
    while i < len(lines):
        m = FENCE_OPEN.match(lines[i])
        if not m:
            if lines[i].strip():
                before = lines[i].strip()
            i += 1
            continue
        fence, info, start, indent = m["fence"], m["info"], i, m["indent"]
        body: list[str] = []
        i += 1
        while i < len(lines):
            close = FENCE_OPEN.match(lines[i])
            if (
                close
                and not close["info"]
                and close["fence"][0] == fence[0]
                and len(close["fence"]) >= len(fence)
            ):
                break
            line = lines[i]
            strip = min(len(indent), len(line) - len(line.lstrip(" ")))
            body.append(line[strip:])
            i += 1
        else:
            raise ValueError(f"{path}:{start + 1}: fence {fence}{info} is never closed")
        fences.append(Fence(path, start + 1, fence, info, body, before, i + 1, indent))
        before = lines[i].strip()
        i += 1
    return fences


def run_block(code: str) -> str:
    """Execute ``code`` as pytest-codeblocks does (fresh globals) and return what it printed."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(code, "<markdown block>", "exec"), {"__MODULE__": "__main__"})  # noqa: S102
    return buf.getvalue()
