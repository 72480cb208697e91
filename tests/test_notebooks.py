"""Notebooks are stored clean, run as tests, and fail the site build when a cell fails.

Each notebook under ``docs/`` is a page of the site. The build's execute stage
(``scripts/hooks/execute.py``) runs it before any page renders, and mkdocs-jupyter renders the
executed copy (``execute: false``): a failing cell fails the build. The audits (``python -m pytest
-m
audit``) execute every notebook once more in a kernel of its own and compare the copy with the
build's, byte for byte (:func:`test_a_notebook_executed_again_gives_the_same_copy`). They also
check the execute stage's machinery on small made-up notebooks: a failing cell fails the stage and
the build, naming the notebook; a cell's printed chunks become one output.
``python -m pytest --nbmake docs/notebooks`` runs them as tests of their own (nbmake, as the torch
matrix does on each release). The tests here guard what those runs do not check.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
import pytest
import yaml

from scripts import ROOT
from scripts.checks.site import build_site, nav_pages
from scripts.hooks import execute
from scripts.hooks import notebooks as hook
from tests.built_pages import broken_links
from tests.test_site import first_differences


def _notebooks(root: Path) -> list[Path]:
    """Every notebook under ``root``, hidden folders (.venv, .cache, .ipynb_checkpoints) and the
    built site (``site/``, where each article's generated notebook lands) aside; they are not
    entered at all, so the gigabytes of the virtual environments cost nothing."""
    found = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [
            d
            for d in subfolders
            if not d.startswith(".") and not (folder == str(root) and d == "site")
        ]
        found.extend(Path(folder, name) for name in files if name.endswith(".ipynb"))
    return sorted(found)


#: Every notebook of the repository (see :func:`_notebooks`).
NOTEBOOKS = _notebooks(ROOT)
IDS = [p.relative_to(ROOT).as_posix() for p in NOTEBOOKS]


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def test_the_site_has_notebooks():
    assert "docs/notebooks/embedding-hands-on.ipynb" in IDS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_notebook_is_stored_without_outputs_or_execution_counts(path):
    dirty = [
        f"cell {n}: {len(cell['outputs'])} output(s), execution_count {cell['execution_count']}"
        for n, cell in enumerate(_cells(path))
        if cell["cell_type"] == "code" and (cell["outputs"] or cell["execution_count"] is not None)
    ]
    assert not dirty, (
        f"{path.name} holds results; clear them before committing "
        "(jupyter nbconvert --clear-output --inplace <notebook>):\n" + "\n".join(dirty)
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_every_code_cell_asserts_and_errors_are_not_allowed(path):
    """A cell that prints but asserts nothing proves nothing; execution must stop at an error."""
    silent = [
        n
        for n, c in enumerate(_cells(path))
        if c["cell_type"] == "code" and "assert" not in _source(c)
    ]
    assert not silent, f"{path.name}: code cells without an assert: {silent}"
    metadata = json.loads(path.read_text(encoding="utf-8"))["metadata"]
    assert not metadata.get("execution", {}).get("allow_errors"), (
        f"{path.name}: metadata.execution.allow_errors would let a failing cell pass"
    )


def test_every_notebook_is_a_page_of_the_site():
    """The builds execute only the notebooks in the navigation; one outside it would never run
    in a plain ``python -m pytest``."""
    pages = {f"docs/{page}" for page in nav_pages()}
    assert [nb for nb in IDS if nb.startswith("docs/") and nb not in pages] == []
    assert [nb for nb in IDS if not nb.startswith("docs/")] == [], "a notebook outside docs/"


@pytest.mark.audit
def test_a_failing_cell_fails_the_site_build(tmp_path):
    """The site's own mkdocs-jupyter settings and notebook steps turn a failing cell into a failed
    build that names the error (a minimal project, so the test takes seconds, not a full build).
    mkdocs-jupyter only renders: the build's execute stage runs the notebook."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    jupyter = next(
        p["mkdocs-jupyter"]
        for p in config["plugins"]
        if isinstance(p, dict) and "mkdocs-jupyter" in p
    )
    assert jupyter["execute"] is False and jupyter["include"] == ["*.ipynb"]
    project = tmp_path / "project"
    (project / "docs").mkdir(parents=True)
    (project / "mkdocs.yml").write_text(
        yaml.safe_dump(
            {
                "site_name": "failing cell",
                "strict": True,
                "theme": {"name": "material"},
                "nav": [{"Broken": "broken.ipynb"}],
                "plugins": [{"mkdocs-jupyter": jupyter}],
                "hooks": [
                    str(ROOT / "scripts" / "hooks" / name)
                    for name in ("execute_stage.py", "notebooks.py")
                ],
            }
        )
    )
    notebook = {
        "cells": [
            {"cell_type": "markdown", "id": "a", "metadata": {}, "source": "# Broken"},
            {
                "cell_type": "code",
                "id": "b",
                "metadata": {},
                "execution_count": None,
                "outputs": [],
                "source": 'assert 1 + 1 == 3, "a deliberately failing cell"',
            },
        ],
        "metadata": {
            "kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (project / "docs" / "broken.ipynb").write_text(json.dumps(notebook))
    proc = build_site(project, tmp_path / "out")
    assert proc.returncode != 0, proc.stdout[-2000:]
    assert "a deliberately failing cell" in proc.stdout, proc.stdout[-2000:]


def test_hook_strips_the_template_assets_and_refuses_other_scripts():
    html = (
        '<script src=""> </script><script type="text/x-mathjax-config">x</script>'
        '<style>.jupyter-wrapper{}</style><div class="zeroclipboard-container">c</div>'
        '<div class="highlight-ipynb hl-python"><pre><span class="k">import</span> x</pre></div>'
        '<div class="jp-RenderedText jp-OutputArea-output" tabindex="0"><pre>out</pre></div>'
        '<h2 id="a">A<a class="anchor-link" href="#a">¶</a></h2>'
    )
    clean = hook.restyle(html, "x.ipynb")
    assert "<script" not in clean and "<style" not in clean and "zeroclipboard" not in clean
    assert '<div class="language-python highlight"><pre><code><span class="k">import' in clean
    assert '<div class="language-text nb-output no-copy highlight"><pre><code>out' in clean
    assert "tabindex" not in clean
    assert '<a class="headerlink" href="#a" title="Permanent link">' in clean
    with pytest.raises(hook.PluginError, match="x.ipynb"):
        hook.restyle('<script>alert("from an output")</script>', "x.ipynb")


def test_a_restyled_page_is_kept_by_content(tmp_path, monkeypatch):
    """A warm build reads a notebook page's restyled HTML from the cache; other HTML, other
    table-of-contents ids or another version of the step make it again."""
    made = []
    monkeypatch.setattr(hook, "restyle", lambda *args: made.append(args) or f"page {len(made)}")
    html = '<h2 id="a">A</h2>'
    first = hook.restyled(html, "x.ipynb", ("a",), tmp_path)
    assert hook.restyled(html, "x.ipynb", ("a",), tmp_path) == first == "page 1"
    assert hook.restyled(html + " ", "x.ipynb", ("a",), tmp_path) == "page 2"
    assert hook.restyled(html, "x.ipynb", ("b",), tmp_path) == "page 3"
    edited = tmp_path / "notebooks.py"  # the step's module, edited
    edited.write_bytes(Path(hook.__file__).read_bytes() + b"# edited\n")
    monkeypatch.setattr(hook, "__file__", str(edited))
    assert hook.restyled(html, "x.ipynb", ("a",), tmp_path) == "page 4"


def test_hook_finds_broken_links(tmp_path):
    page = tmp_path / "nb" / "index.html"
    page.parent.mkdir()
    (tmp_path / "nb" / "nb.ipynb").write_text("{}")
    page.write_text(
        '<article><h2 id="here">x</h2><a href="nb.ipynb">ok</a><a href="#here">ok</a>'
        '<a href="../data/gone.tsv">gone</a><a href="#nowhere">gone</a>'
        '<a href="https://example.com/">not checked</a><a href="/nb/">absolute</a></article>'
    )
    problems = broken_links(tmp_path, "nb/index.html")
    assert [p.split(":")[0] for p in problems] == ["../data/gone.tsv", "#nowhere", "/nb/"]


@pytest.mark.audit
def test_the_execute_stage_merges_a_cells_printed_chunks_into_one_output(tmp_path):
    """A cell's printed text reaches the build in chunks whose boundaries depend on timing; the
    execute stage (``scripts/hooks/execute.py``) keeps one output per stream, so two builds give the
    same page, and no execution timestamps. The cell below sends two chunks half a second
    apart; with ``coalesce_streams`` off it gives two outputs (checked when this was written)."""
    source = tmp_path / "chunks.ipynb"
    nbformat.write(
        nbformat.v4.new_notebook(
            cells=[
                nbformat.v4.new_code_cell(
                    'import time\nprint("first", flush=True)\ntime.sleep(0.5)\nprint("second")'
                )
            ],
            metadata={
                "kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"}
            },
        ),
        source,
    )
    cell = nbformat.reads(execute.executed(source).decode(), as_version=4).cells[0]
    assert [o["text"] for o in cell.outputs] == ["first\nsecond\n"]
    assert "execution" not in cell.metadata


@pytest.mark.audit
def test_the_execute_stage_kills_a_kernel_when_its_cells_are_done(tmp_path, monkeypatch):
    """The kernel is killed, not asked to shut down: a graceful shutdown can race inside
    ipykernel 7.4 and print an ENOTSOCK traceback into the build's log, failing the clean-log test.
    A kernel's ``atexit`` hook runs only on a graceful exit (checked with ``shutdown_kernel``
    ``graceful``: the file was written)."""
    source, witness = tmp_path / "exit.ipynb", tmp_path / "exited-gracefully"
    nbformat.write(
        nbformat.v4.new_notebook(
            cells=[
                nbformat.v4.new_code_cell(
                    f"import atexit, pathlib\natexit.register(pathlib.Path({str(witness)!r}).touch)"
                )
            ],
            metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        ),
        source,
    )
    execute.executed(source)
    assert not witness.exists()
    monkeypatch.setitem(execute.SETTINGS, "shutdown_kernel", "graceful")
    execute.executed(source)
    assert witness.exists()


@pytest.mark.audit
def test_a_failing_cell_fails_the_execute_stage_naming_the_notebook(tmp_path):
    source = tmp_path / "broken.ipynb"
    nbformat.write(
        nbformat.v4.new_notebook(
            cells=[nbformat.v4.new_code_cell("raise ValueError('on purpose')")],
            metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        ),
        source,
    )
    with pytest.raises(
        execute.NotebookFailed,
        match=r"broken\.ipynb: (.|\n)*ValueError: on purpose\nraise ValueError",
    ):
        execute.executed(source)


@pytest.mark.audit
@pytest.mark.parametrize("page", [p for p in nav_pages() if p.endswith(".ipynb")])
def test_a_notebook_executed_again_gives_the_same_copy(page, site, tmp_path):
    """Executed once more, in a fresh kernel, a notebook gives the copy the site was built from,
    byte for byte: no cell prints the clock, an address or an unseeded random number, and the
    page stays the same from one build to the next (tests/test_site.py compares two builds,
    which render the same executed copies)."""
    source = ROOT / "docs" / page
    key = execute.notebook_key(source)
    built = ROOT / ".cache" / "executed" / key / page
    assert built.is_file(), f"{page}: the build left no executed copy at {built}"
    first, second = built.read_bytes(), execute.executed(source, key)
    assert first == second, first_differences(first, second, page)


def test_a_notebook_page_is_dated_like_the_other_pages(site):
    """A notebook page is rendered from its executed copy, which git does not track, so its "Last
    update" comes from scripts/hooks/execute_stage.py, not from git-revision-date-localized: for
    an article, that function gives exactly the plugin's markup; for a notebook, the page shows
    the date of the committed notebook's last commit."""
    from scripts.checks.site import html_of
    from scripts.hooks.execute_stage import revision_date

    article = html_of(site, "lookup-tables.md").read_text(encoding="utf-8")
    assert revision_date(ROOT / "docs" / "lookup-tables.md") in article
    for page in (p for p in nav_pages() if p.endswith(".ipynb")):
        shown = html_of(site, page).read_text(encoding="utf-8")
        assert revision_date(ROOT / "docs" / page) in shown, page


def test_prune_spares_what_a_concurrent_build_may_use(tmp_path):
    """Only folders that are unused, finished (no leading dot) and an hour old are deleted."""
    from scripts.hooks.cache import PRUNE_AFTER_S, prune

    names = ["kept", "recent", "old", ".half-written.tmp"]
    for name in names:
        (tmp_path / name).mkdir()
    hours_ago = os.path.getmtime(tmp_path) - PRUNE_AFTER_S - 60
    for name in ("kept", "old", ".half-written.tmp"):
        os.utime(tmp_path / name, (hours_ago, hours_ago))
    prune(tmp_path, {"kept"})
    assert sorted(p.name for p in tmp_path.iterdir()) == [".half-written.tmp", "kept", "recent"]


def test_an_article_download_is_made_again_when_its_converter_changes(tmp_path):
    """The key of an article's download covers the code that converts it, not only the page."""
    import shutil

    from scripts.hooks.article_notebooks import CONVERTER, article_key

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text("# Page\n")
    (tmp_path / CONVERTER).parent.mkdir(parents=True)
    shutil.copy(ROOT / CONVERTER, tmp_path / CONVERTER)
    before = article_key(tmp_path, "page.md", "/")
    with open(tmp_path / CONVERTER, "a") as edited:
        edited.write("\n# a change to the converter\n")
    assert article_key(tmp_path, "page.md", "/") != before
