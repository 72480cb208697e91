"""Every figure the build draws is a self-contained SVG in both palettes, readable on a phone.

The contributor's tests read the figures of the run's one site build. The audits
(``python -m pytest -m audit``) draw each figure again and compare it byte for byte, and build
small projects to check the build's figure machinery: each module drawn in a worker process, its
SVG files kept in a cache keyed by its sources, a broken module failing the build by name.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import sys
import textwrap

import pytest
import yaml
from mkdocs.exceptions import PluginError

from scripts import ROOT
from scripts.checks.site import build_site
from scripts.hooks import execute
from scripts.hooks.cache import environment_fingerprint
from snippets.figure_style import MIN_TEXT_PX, PHONE_COLUMN_PX, THEMES, render_svg, smallest_text_px

#: The snippets packages that have figures: ``lookup_tables``, ``sparsity``, ...
MODULES = [job.args[0] for job in execute.figure_jobs(ROOT)]
FUNCTIONS = [
    (mod, name)
    for mod in MODULES
    for name in importlib.import_module(f"snippets.{mod}.figures").__all__
]


@pytest.mark.parametrize("mod,name", FUNCTIONS, ids=[f"{m}.{n}" for m, n in FUNCTIONS])
def test_figure_is_a_self_contained_svg_readable_on_a_phone(mod, name, site):
    """Each figure the site build drew, in both palettes: an SVG with no date and no reference
    outside the file, in its theme's text colour, light differing from dark, its smallest text
    at least MIN_TEXT_PX on a phone's column. Read from the build: nothing is drawn here."""
    svgs = {}
    for theme in THEMES:
        svg = (site / f"figures/{mod.replace('_', '-')}/{name}-{theme.name}.svg").read_bytes()
        text = svg.decode("utf-8")
        assert text.lstrip().startswith("<?xml") and "<svg" in text
        assert "<dc:date>" not in text, "SVG carries a date"
        # Nothing in the figure points outside the file.
        external = re.findall(r'(?:xlink:)?href="(?!#)([^"]+)"', text)
        assert not external, f"{name}: SVG references {external}"
        assert theme.fg.lower() in text.lower(), f"{name}: does not use its theme's text colour"
        # Readable on a phone: the browser test measures the width it is really shown at.
        px = smallest_text_px(svg, PHONE_COLUMN_PX)
        assert px >= MIN_TEXT_PX, f"{name}: smallest text {px:.1f} px on a phone (< {MIN_TEXT_PX})"
        svgs[theme.name] = svg
    assert len(set(svgs.values())) == len(THEMES), f"{name}: the variants are identical"


@pytest.mark.audit
@pytest.mark.parametrize("mod,name", FUNCTIONS, ids=[f"{m}.{n}" for m, n in FUNCTIONS])
def test_figure_drawn_again_is_byte_identical(mod, name, site):
    """Drawn again here, each figure equals, byte for byte, the one the site build drew in
    another process: no hash seed, clock or process state leaks in."""
    fn = getattr(importlib.import_module(f"snippets.{mod}.figures"), name)
    for theme in THEMES:
        svg = render_svg(fn, theme)  # raises TypeError unless fn returns a matplotlib Figure
        built = site / f"figures/{mod.replace('_', '-')}/{name}-{theme.name}.svg"
        assert svg == built.read_bytes(), f"{name} ({theme.name}): differs from the site's copy"


def test_clip_paths_are_numbered_not_hashed():
    """matplotlib names a clip rectangle by a hash of its unrounded coordinates, so a layout that
    moves in a float's last bit renames it though every coordinate written (6 decimals) is the
    same: seen once between the figure cache and the audit's redraw of bench_time_vs_vocab.
    render_svg numbers them instead (snippets.figure_style.numbered_clip_ids)."""
    from snippets.benchmarks.figures import bench_time_vs_vocab
    from snippets.figure_style import THEMES, numbered_clip_ids

    svg = render_svg(bench_time_vs_vocab, THEMES[0])
    assert b'<clipPath id="clip0">' in svg and not re.search(rb'id="p[0-9a-f]{10}"', svg)
    a = b'<clipPath id="p0123456789"><rect/></clipPath><g clip-path="url(#p0123456789)"/>'
    b = b'<clipPath id="pabcdefabcd"><rect/></clipPath><g clip-path="url(#pabcdefabcd)"/>'
    assert (
        numbered_clip_ids(a)
        == numbered_clip_ids(b)
        == (b'<clipPath id="clip0"><rect/></clipPath><g clip-path="url(#clip0)"/>')
    )


def test_serve_cache_key_follows_the_sources_a_figure_can_depend_on(tmp_path):
    snippets = tmp_path / "snippets"
    for page in ("one", "two"):
        (snippets / page).mkdir(parents=True)
        (snippets / page / "figures.py").write_text(f'__all__ = ["{page}"]\n')
    (snippets / "figure_style.py").write_text("A = 1\n")
    (snippets / "data.json").write_text("[1]\n")
    one, two = "snippets/one/figures.py", "snippets/two/figures.py"

    def keys() -> dict[str, str]:
        return {job.name: job.key for job in execute.figure_jobs(tmp_path)}

    first = keys()
    assert sorted(first) == [one, two] and first == keys()  # stable
    (tmp_path / one).write_text('__all__ = ["one"]  # edited\n')
    edited = keys()
    assert edited[one] != first[one]
    assert edited[two] == first[two]  # other pages keep their SVGs
    (snippets / "data.json").write_text("[2]\n")
    data_changed = keys()
    assert all(data_changed[s] != edited[s] for s in edited)  # data/helpers invalidate all
    assert "torch==" in environment_fingerprint()  # a new pin invalidates all too
    assert sys.version in environment_fingerprint()


@pytest.mark.audit
def test_the_environment_is_the_same_in_every_process(tmp_path):
    """Cache keys do not depend on where a command starts or what it imported first: from the
    project's folder Python also finds the editable install's ``*.egg-info``, and once
    setuptools is imported it finds the distributions setuptools vendors."""
    import subprocess

    code = "from scripts.hooks.cache import environment_fingerprint as f; print(f(), end='')"
    seen = {
        subprocess.run(
            [sys.executable, "-c", first + code],
            cwd=cwd,
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        ).stdout
        for cwd in [ROOT, tmp_path]
        for first in ["", "import setuptools; "]
    }
    assert len(seen) == 1, "the fingerprint differs between processes of one environment"
    lines = seen.pop().splitlines()[1:]
    assert len(lines) == len(set(lines)) and any(ln.startswith("torch==") for ln in lines)


def test_figure_names_are_read_without_importing(tmp_path):
    good = tmp_path / "good.py"
    good.write_text('import no_such_module\n__all__ = ["a", "b"]\n')
    assert execute.declared_names(good, "good.py") == ["a", "b"]
    for source, message in [
        ("x = 1\n", "has no __all__"),
        ("__all__ = NAMES\n", "list of names written out"),
        ("def f(:\n", "SyntaxError"),
    ]:
        bad = tmp_path / "bad.py"
        bad.write_text(source)
        with pytest.raises(PluginError, match=message):
            execute.declared_names(bad, "bad.py")


#: A figure module for the minimal projects below: one figure, and a line in ``calls.log`` (outside
#: ``snippets/``, so that it is no input of the cache key) each time it is drawn.
FIGURE_MODULE = """
from pathlib import Path

from snippets.figure_style import Theme, new_figure

__all__ = ["{name}"]


def {name}(theme: Theme):
    with open(Path(__file__).parents[2] / "calls.log", "a") as log:
        log.write("{name} " + theme.name + "\\n")
    fig = new_figure(theme, 2, 1)
    fig.text(0.5, 0.5, "{text}", color=theme.fg)
    {body}
    return fig
"""


def minimal_project(tmp_path, modules: dict[str, str]):
    """A project with the site's execute stage, figure steps and style, and figure modules
    ``{package: source}``.

    Builds in seconds: one page, MkDocs' own theme, no notebook. Returns the project folder.
    """
    project = tmp_path / "project"
    (project / "docs").mkdir(parents=True)
    (project / "docs" / "index.md").write_text("# Figures\n")
    (project / "snippets").mkdir()
    (project / "snippets" / "__init__.py").write_text("")
    shutil.copy(ROOT / "snippets" / "figure_style.py", project / "snippets" / "figure_style.py")
    for package, source in modules.items():
        (project / "snippets" / package).mkdir()
        (project / "snippets" / package / "__init__.py").write_text("")
        (project / "snippets" / package / "figures.py").write_text(source)
    (project / "mkdocs.yml").write_text(
        yaml.safe_dump(
            {
                "site_name": "figures",
                "strict": True,
                "hooks": [str(ROOT / "scripts" / "hooks" / "execute_stage.py")],
            }
        )
    )
    return project


def figure(name: str, text: str = "x", body: str = "") -> str:
    return textwrap.dedent(FIGURE_MODULE).format(name=name, text=text, body=body or "pass")


@pytest.mark.audit
def test_a_build_draws_only_the_modules_whose_sources_changed(tmp_path):
    """The cache in ``.cache/figures/`` serves a later build, in another process; editing one
    module redraws that module's figures only; the site's files are the same either way."""
    project = minimal_project(tmp_path, {"one": figure("first"), "two": figure("second")})
    calls = project / "calls.log"

    def build(n: int) -> dict[str, bytes]:
        proc = build_site(project, tmp_path / f"out{n}")
        assert proc.returncode == 0, proc.stdout[-3000:]
        assert not re.search(r"^\s*WARNING", proc.stdout, re.M), proc.stdout
        out = tmp_path / f"out{n}" / "figures"
        return {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*.svg")}

    first = build(1)
    assert sorted(first) == sorted(
        f"{p}/{n}-{t.name}.svg" for p, n in [("one", "first"), ("two", "second")] for t in THEMES
    )
    assert sorted(calls.read_text().split("\n")[:-1]) == sorted(
        f"{n} {t.name}" for n in ("first", "second") for t in THEMES
    )
    assert len(list((project / ".cache" / "figures").iterdir())) == 2

    calls.unlink()
    assert build(2) == first  # nothing drawn: both modules came from the cache
    assert not calls.exists()

    (project / "snippets" / "one" / "figures.py").write_text(figure("first", text="edited"))
    third = build(3)
    assert sorted(calls.read_text().split("\n")[:-1]) == sorted(f"first {t.name}" for t in THEMES)
    assert third["two/second-light.svg"] == first["two/second-light.svg"]
    assert third["one/first-light.svg"] != first["one/first-light.svg"]
    # the old entry is kept until no build has used it for an hour (the cache's one prune policy)
    assert len(list((project / ".cache" / "figures").iterdir())) == 3


@pytest.mark.audit
def test_a_broken_figure_script_fails_the_build_naming_it(tmp_path):
    """A figure function that raises fails the build with the module's path and the function's
    name (a minimal project: the site's own figure hook, one good module and one broken)."""
    broken = figure("upside_down", body='raise ValueError("no axes")')
    project = minimal_project(tmp_path, {"fine": figure("fine"), "zz_broken_example": broken})
    proc = build_site(project, tmp_path / "out")
    assert proc.returncode != 0
    error = [ln for ln in proc.stdout.splitlines() if "upside_down" in ln and "no axes" in ln]
    assert error, proc.stdout[-2000:]
    assert "snippets/zz_broken_example/figures.py" in error[0], error[0]


def test_every_figure_links_to_its_own_file_once():
    from scripts.hooks.page_html import FIGURE_TITLE, rewrite

    page = (
        '<figure><p><img alt="A" loading="lazy" src="figures/x/a-light.svg#only-light" />'
        '<img alt="A" loading="lazy" src="figures/x/a-dark.svg#only-dark" /></p></figure>'
        '<p><img alt="logo" src="logo.svg" /> <img alt="photo" src="p.png#only-light" /></p>'
    )
    linked = rewrite(page, None, {})
    assert linked.count("<a ") == 2, linked
    link = f'<a class="figure-full" href="figures/x/a-light.svg" title="{FIGURE_TITLE}">'
    assert f'{link}<img alt="A"' in linked
    assert 'href="figures/x/a-dark.svg"' in linked and '<img alt="logo" src="logo.svg" />' in linked
