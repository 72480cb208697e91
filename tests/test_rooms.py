"""The project's code in rooms (``scripts/__init__.py``): the build, the checks of a built site and
the contributor's commands import one way (commands -> checks -> hooks), with no circle, no name in
two rooms, one root and one command (``python -m scripts``)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from scripts import ROOT
from scripts.__main__ import COMMANDS

#: Each room and the rooms its modules may import (itself included).
MAY_IMPORT = {
    "hooks": {"hooks"},
    "checks": {"hooks", "checks"},
    "commands": {"hooks", "checks", "commands"},
}


def modules() -> dict[str, Path]:
    """Dotted name -> file of every module of the ``scripts`` package."""
    found = {}
    for path in sorted((ROOT / "scripts").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(path: Path, names: set[str]) -> set[str]:
    """The project modules (among ``names``) that ``path`` imports, at any depth of its code."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return {n for n in found if n in names}


def room(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if len(parts) > 2 and parts[1] in MAY_IMPORT else None


def graph() -> dict[str, set[str]]:
    mods = modules()
    return {name: imports(path, set(mods)) - {"scripts"} for name, path in mods.items()}


def test_imports_point_one_way():
    wrong = [
        f"{a} imports {b}"
        for a, deps in graph().items()
        for b in deps
        if room(a) and room(b) and room(b) not in MAY_IMPORT[room(a)]
    ]
    assert not wrong, wrong


def test_the_project_code_imports_no_test_code():
    for name, path in modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        found |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert not {m for m in found if m.split(".")[0] == "tests"}, f"{name} imports tests"


def test_no_import_circle():
    edges = graph()
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for dep in sorted(edges.get(node, ())):
            if state.get(dep) == 1:
                pytest.fail("import circle: " + " -> ".join([*path, node, dep]))
            if dep not in state:
                visit(dep, [*path, node])
        state[node] = 2

    for name in sorted(edges):
        if name not in state:
            visit(name, [])


def test_no_name_in_two_rooms():
    seen: dict[str, str] = {}
    for name in modules():
        if room(name) and not name.endswith(("__init__", ".build", ".checks", ".commands")):
            stem = name.rsplit(".", 1)[1]
            assert stem not in seen, f"{stem} is in {seen[stem]} and {room(name)}"
            seen[stem] = room(name)


def test_one_root_and_no_sys_path_edits():
    for name, path in modules().items():
        text = path.read_text(encoding="utf-8")
        if name != "scripts":
            assert not re.search(r"^ROOT\s*=", text, re.M), f"{name} works out the root again"
            assert "parents[" not in text, f"{name} works out the root from its own path"
            assert "config_file_path" not in text, f"{name}: use scripts.root_of(config)"
        edit = re.search(r"sys\.path(\.(insert|append|extend)|\[)", text)
        assert not edit, f"{name} edits sys.path"


def test_every_command_is_a_subcommand():
    mains = {
        name
        for name, path in modules().items()
        if room(name) in ("checks", "commands")
        and re.search(r"^def main\(", path.read_text(encoding="utf-8"), re.M)
    }
    assert mains == {m for m, _ in COMMANDS.values() if room(m) != "hooks"}
    for module, _ in COMMANDS.values():
        assert module in modules(), module


def test_help_lists_every_subcommand_and_each_has_its_own():
    out = subprocess.run(
        [sys.executable, "-m", "scripts", "--help"],
        cwd=ROOT,
        text=True,
        capture_output=True,
        check=True,
    ).stdout
    assert all(name in out for name in COMMANDS)
    one = subprocess.run(
        [sys.executable, "-m", "scripts", "build-imports", "--help"],
        cwd=ROOT,
        text=True,
        capture_output=True,
        check=True,
    ).stdout
    assert one.startswith("usage: python -m scripts build-imports")
    bad = subprocess.run(
        [sys.executable, "-m", "scripts", "no-such"], cwd=ROOT, text=True, capture_output=True
    )
    assert bad.returncode == 2 and "invalid choice" in bad.stderr


#: Where a contributor or CI reads a command.
COMMAND_TEXTS = [
    "README.md",
    "CONTRIBUTING.md",
    ".ci/run",
    *(
        p.relative_to(ROOT).as_posix()
        for p in sorted((ROOT / ".github" / "workflows").glob("*.yml"))
    ),
]


@pytest.mark.parametrize("rel", COMMAND_TEXTS)
def test_every_command_written_down_is_a_subcommand(rel):
    text = (ROOT / rel).read_text(encoding="utf-8")
    assert not re.search(r"python -m scripts\.", text), f"{rel}: use python -m scripts <subcommand>"
    for name in re.findall(r"python -m scripts (\w[\w-]*)", text):
        assert name in COMMANDS, f"{rel}: no subcommand {name}"
