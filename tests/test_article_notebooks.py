"""Every article downloads as a notebook that runs (scripts/article_notebooks.py).

One test per article executes its notebook the way nbmake executes a notebook (a Jupyter kernel
through nbclient, a failing cell fails the test), in a temporary folder holding the data files the
notebook reads, as the downloaded zip would unpack. The notebooks are made by the same pure
function the build hook calls, so no site is built here. The other tests pin the conversion rules
on a small made-up project.

Each worker keeps one kernel for all the notebooks it runs (:class:`ReusedKernel`): starting a
kernel and importing torch in it cost more than most articles' cells. Before each notebook the
kernel is made as fresh as a new one for what a notebook can see: an empty namespace, the
notebook's folder as working directory, no module left imported from an earlier notebook's folder,
and the global settings a cell can change put back as they were when the kernel started.

A notebook that ran to the end is remembered by the content of everything it could read
(:func:`run_key`): the next run of the suite skips it, saying so, until one of them changes. Only
the article a contributor edits runs again; a clean checkout (CI) runs them all. ``rm -rf
.cache/article-runs`` forgets every run.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

import nbclient
import nbformat
import pytest
import yaml
from jupyter_client.manager import AsyncKernelManager
from jupyter_core.utils import run_sync

from scripts.article_notebooks import article_notebook
from scripts.execute import CONVERTER, converter_digest, kernel_command
from scripts.hooks.article_notebooks import articles, downloads, sources_digest, zip_bytes
from scripts.markdown_model import ROOT

SITE_URL = "https://example.org/site/"
ARTICLES = articles(yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)["nav"])
#: One file per article (``lookup-tables.md``) holding the :func:`run_key` of its notebook's last
#: run that passed.
RUNS_DIR = ROOT / ".cache" / "article-runs"


def run_key(page: str, root: Path = ROOT) -> str:
    """sha256 (hex) of everything a run of ``page``'s notebook depends on, read without
    converting it: the files the conversion reads (:func:`sources_digest`: the page, what it
    includes and all of ``snippets/``, which the kernel can also import, the project being
    installed), the converter's code and every installed package's version
    (:func:`scripts.execute.converter_digest`), the kernel's command line and this test
    module, which holds the conversion's site URL and the kernel code that runs first
    (:data:`FRESH_KERNEL_CELL`)."""
    h = hashlib.sha256()
    for part in [sources_digest(root, page), converter_digest(root), kernel_command("python3")]:
        h.update(part.encode() + b"\0")
    h.update(Path(__file__).read_bytes())
    return h.hexdigest()


#: The first cell of every notebook run in a :class:`ReusedKernel` (``FOLDER`` replaced by the
#: notebook's folder). The first time, it records the kernel's global settings; each later time,
#: it puts them back, forgets the modules imported from the previous notebook's folder and moves
#: to the new one. Last, ``%reset -f`` empties the namespace: the notebook sees none of its names.
FRESH_KERNEL_CELL = """\
def _fresh_kernel(folder):
    import importlib, os, random, sys, warnings
    import numpy, torch
    base = getattr(sys, "_article_kernel_baseline", None)
    if base is None:
        sys._article_kernel_baseline = {
            "dtype": torch.get_default_dtype(), "grad": torch.is_grad_enabled(),
            "deterministic": torch.are_deterministic_algorithms_enabled(),
            "threads": torch.get_num_threads(), "torch_rng": torch.random.get_rng_state(),
            "random": random.getstate(), "numpy": numpy.random.get_state(),
            "warnings": list(warnings.filters), "environ": dict(os.environ),
            "path": list(sys.path),
        }
    else:
        torch.set_default_dtype(base["dtype"])
        torch.set_grad_enabled(base["grad"])
        torch.use_deterministic_algorithms(base["deterministic"])
        torch.set_num_threads(base["threads"])
        torch.random.set_rng_state(base["torch_rng"])
        torch.set_printoptions(profile="default")
        random.setstate(base["random"])
        numpy.random.set_state(base["numpy"])
        warnings.filters[:] = base["warnings"]
        os.environ.clear()
        os.environ.update(base["environ"])
        sys.path[:] = base["path"]
        previous = os.getcwd() + os.sep
        for name, module in list(sys.modules.items()):
            if (getattr(module, "__file__", None) or "").startswith(previous):
                del sys.modules[name]
        importlib.invalidate_caches()
    os.chdir(folder)
_fresh_kernel(FOLDER)
get_ipython().run_line_magic("reset", "-f")
"""


class ReusedKernel:
    """One ``python3`` Jupyter kernel that runs notebook after notebook (see the module doc).

    Started by the first :meth:`run`; shut down by :meth:`close`, or after a notebook fails, so
    the next notebook gets a new kernel.
    """

    def __init__(self) -> None:
        self.km = AsyncKernelManager(kernel_name="python3")

    def run(self, notebook, folder: Path) -> None:
        """Execute ``notebook`` (nbformat 4, changed in place: its outputs) with ``folder`` as the
        working directory, after a first cell that freshens the kernel (:data:`FRESH_KERNEL_CELL`,
        removed again afterwards). Raises ``nbclient.exceptions.CellExecutionError`` at a failing
        cell, ``nbclient.exceptions.DeadKernelError`` when the kernel dies."""
        fresh = nbformat.v4.new_code_cell(FRESH_KERNEL_CELL.replace("FOLDER", repr(str(folder))))
        notebook.cells.insert(0, fresh)
        client = nbclient.NotebookClient(
            notebook, km=self.km, timeout=110, allow_errors=False,
            resources={"metadata": {"path": str(folder)}},
        )
        try:
            client.execute()
        except BaseException:
            self.close()
            raise
        finally:
            notebook.cells.remove(fresh)
            if client.kc is not None:
                client.kc.stop_channels()

    def close(self) -> None:
        """Shut the kernel down, if it runs."""
        if self.km.has_kernel:
            run_sync(self.km.shutdown_kernel)(now=True)


@pytest.fixture(scope="session")
def kernel():
    """This worker's :class:`ReusedKernel`."""
    reused = ReusedKernel()
    yield reused
    reused.close()


def test_a_reused_kernel_is_as_fresh_as_a_new_one(kernel, tmp_path):
    """What one notebook leaves in the kernel, the next does not see: its names, its modules, its
    working directory and the global settings it changed."""
    first, second = tmp_path / "first", tmp_path / "second"
    for folder in first, second:
        folder.mkdir()
    (first / "helper.py").write_text("VALUE = 1\n")
    code = nbformat.v4.new_code_cell
    kernel.run(nbformat.v4.new_notebook(cells=[code(
        "import os, warnings\nimport torch\nimport helper\nleftover = helper.VALUE\n"
        "torch.set_default_dtype(torch.float64)\ntorch.set_grad_enabled(False)\n"
        "torch.manual_seed(1)\nwarnings.simplefilter('ignore')\n"
        "os.environ['LEFTOVER'] = '1'"
    )]), first)
    fresh = nbformat.v4.new_notebook(cells=[code(
        "import os, warnings\nimport torch\n"
        "assert 'leftover' not in dir() and 'helper' not in dir()\n"
        "try:\n    import helper\nexcept ModuleNotFoundError:\n    pass\n"
        "else:\n    raise AssertionError('helper.py of the first notebook is importable')\n"
        f"assert os.getcwd() == {str(second)!r}\n"
        "assert torch.get_default_dtype() == torch.float32 and torch.is_grad_enabled()\n"
        "assert torch.initial_seed() != 1 and 'LEFTOVER' not in os.environ\n"
        "assert ('ignore', None, Warning, None, 0) not in warnings.filters"
    )])
    kernel.run(fresh, second)
    assert len(fresh.cells) == 1, "the freshening cell is left in the notebook"


def test_every_article_is_listed():
    assert "lookup-tables.md" in ARTICLES and len(ARTICLES) >= 6


@pytest.mark.parametrize("page", ARTICLES)
def test_article_notebook_runs(page, tmp_path, kernel):
    key, passed = run_key(page), RUNS_DIR / page
    if passed.is_file() and passed.read_text() == key:
        pytest.skip(f"{page}: its notebook ran to the end before, with the same files and "
                    f"packages (.cache/article-runs/{page})")
    article = article_notebook(page, SITE_URL)
    assert article.ipynb_bytes() == article_notebook(page, SITE_URL).ipynb_bytes(), (
        f"{page}: two conversions differ; the site's download would change between builds"
    )
    kinds = [cell.cell_type for cell in article.notebook.cells]
    assert kinds.count("code") >= 3 and "markdown" in kinds
    # As a reader unpacks it: the zip's folder, or the notebook alone.
    for name, content in downloads(article).items():
        if name.endswith(".zip"):
            zipfile.ZipFile(io.BytesIO(content)).extractall(tmp_path)
            folder = tmp_path / article.name.removesuffix(".ipynb")
        else:
            (tmp_path / name).write_bytes(content)
            folder = tmp_path
    kernel.run(nbformat.read(folder / article.name, as_version=4), folder)
    RUNS_DIR.mkdir(parents=True, exist_ok=True)
    passed.write_text(key)


def test_a_run_is_remembered_under_everything_it_reads(tmp_path):
    """The key of a run changes with the page, with a file it includes, with a file under
    ``snippets/`` that it does not include, and with the converter's code; it is the same for
    the same files."""
    root = _project(tmp_path)
    for rel in CONVERTER:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes((ROOT / rel).read_bytes())
    keys = [run_key("page.md", root)]
    assert run_key("page.md", root) == keys[0]
    page = root / "docs" / "page.md"
    for path, text in [(page, page.read_text() + "More.\n"),
                       (root / "snippets" / "demo" / "count.py",
                        (root / "snippets" / "demo" / "count.py").read_text() + "# more\n"),
                       (root / "snippets" / "demo" / "unused.py", "X = 1\n"),
                       (root / CONVERTER[0], (root / CONVERTER[0]).read_text() + "# more\n")]:
        path.write_text(text)
        keys.append(run_key("page.md", root))
    assert len(set(keys)) == len(keys), "an edit left the key unchanged"


def _project(tmp_path: Path) -> Path:
    """A minimal repository: one page, one snippet file with a helper and a data file."""
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (root / "snippets" / "demo").mkdir(parents=True)
    (root / "snippets" / "data").mkdir()
    (root / "snippets" / "data" / "words.txt").write_text("a b c\n")
    (root / "snippets" / "demo" / "count.py").write_text(
        '"""Counts words."""\n\nfrom pathlib import Path\n\n'
        'TEXT = Path(__file__).resolve().parent.parent / "data" / "words.txt"\n'
        "LIMIT = 10\n\n\n"
        "def words():\n    return TEXT.read_text().split()\n\n\n"
        "def main():\n    # --8<-- [start:count]\n    n = len(words())\n    assert n < LIMIT\n"
        "    print(n)\n    # --8<-- [end:count]\n\n\n"
        'if __name__ == "__main__":\n    main()\n'
    )
    (root / "docs" / "page.md").write_text(
        "---\ndescription: x\n---\n\n# Page\n\nSee [the other page](other.md#part) and "
        "[below](#here), `#!math x^2`.\n\n"
        '=== "Tab"\n\n    ```python title="snippets/demo/count.py — count"\n'
        '    --8<-- "snippets/demo/count.py:count"\n    ```\n\n'
        "```python\nLIMIT = 0  # a page block that rebinds the file's name\nprint(1)\n```\n\n"
        "<!--pytest-codeblocks:expected-output-->\n```text\n1\n```\n\n"
        '<!--pytest.mark.skip(reason="needs a CUDA GPU")-->\n```python\nimport torch\n'
        'torch.zeros(1, device="cuda")\n```\n\n'
        '```python title="snippets/demo/count.py — count again"\n'
        '--8<-- "snippets/demo/count.py:count"\n```\n\n'
        "![light](figures/page/f-light.svg#only-light){ loading=lazy }\n"
        "![dark](figures/page/f-dark.svg#only-dark){ loading=lazy }\n\n"
        "```math\na = b\n```\n"
    )
    return root


def test_conversion_rules(tmp_path, kernel):
    root = _project(tmp_path)
    article = article_notebook("page.md", SITE_URL, root)
    cells = [(c.cell_type, c.source) for c in article.notebook.cells]
    text = "\n".join(source for _, source in cells)
    code = [source for kind, source in cells if kind == "code"]
    # The file's helpers, its region, the page's block, the file's LIMIT again, the region again.
    assert '__file__ = "snippets/demo/count.py"' in code[0] and "def words" in code[0]
    assert "def main" not in code[0] and "__main__" not in code[0]
    assert code[1].startswith("n = len(words())") and "--8<--" not in code[1]
    assert code[2].startswith("LIMIT = 0")
    assert code[3].endswith("\nLIMIT = 10"), "the page block's LIMIT = 0 is not undone"
    assert code[4] == code[1] and len(code) == 5, "the skipped GPU block must not be a code cell"
    assert "*Not run in this notebook: needs a CUDA GPU.*" in text and "device=\"cuda\"" in text
    assert "```text\n1\n```" not in text, "an expected output is printed by its cell, not shown"
    assert f"]({SITE_URL}other/#part)" in text and f"]({SITE_URL}page/#here)" in text
    assert f"]({SITE_URL}figures/page/f-light.svg)" in text and "f-dark.svg" not in text
    assert "$x^2$" in text and "$$\na = b\n$$" in text and "**Tab**" in text
    assert "description:" not in text and "<!--pytest" not in text
    assert article.data == {"snippets/data/words.txt": b"a b c\n"}
    # The zip unpacks to a folder where the notebook finds its data.
    archive = zipfile.ZipFile(io.BytesIO(zip_bytes(article)))
    assert sorted(archive.namelist()) == ["page/page.ipynb", "page/snippets/data/words.txt"]
    assert zip_bytes(article) == zip_bytes(article_notebook("page.md", SITE_URL, root))
    archive.extractall(tmp_path / "out")
    nb = nbformat.read(tmp_path / "out" / "page" / "page.ipynb", as_version=4)
    kernel.run(nb, tmp_path / "out" / "page")
    last = [c for c in nb.cells if c.source.startswith("n = len")][-1]
    assert last.outputs[0]["text"] == "3\n"  # the file's LIMIT again, and its data found


def test_a_missing_region_is_an_error(tmp_path):
    root = _project(tmp_path)
    page = root / "docs" / "page.md"
    page.write_text(page.read_text().replace("count.py:count", "count.py:gone"))
    with pytest.raises(ValueError, match="no region 'gone'"):
        article_notebook("page.md", SITE_URL, root)


def test_a_region_that_cannot_run_alone_is_shown_and_main_runs(tmp_path, kernel):
    """A region inside a ``with`` of main() reads a name no region binds: it is shown, and the
    file's main() runs whole after its last region. A module imported whole ships in the zip."""
    root = _project(tmp_path)
    (root / "snippets" / "demo" / "wrapped.py").write_text(
        "from snippets.demo import count\n\n\n"
        "def main():\n    with open(count.TEXT) as handle:\n"
        "        # --8<-- [start:read]\n        first = handle.read().split()[0]\n"
        "        # --8<-- [end:read]\n    assert first == 'a'\n    print(first)\n"
    )
    (root / "docs" / "page.md").write_text(
        '# Page\n\n```python title="snippets/demo/wrapped.py — read"\n'
        '--8<-- "snippets/demo/wrapped.py:read"\n```\n'
    )
    article = article_notebook("page.md", SITE_URL, root)
    code = [c.source for c in article.notebook.cells if c.cell_type == "code"]
    text = "\n".join(c.source for c in article.notebook.cells)
    assert "*From `main()` in `snippets/demo/wrapped.py`, which runs in full below.*" in text
    assert code[-1].startswith("def main():") and code[-1].endswith("\nmain()")
    assert "from snippets.demo import count" in code[0]  # kept: the module travels with it
    assert sorted(article.data) == ["snippets/data/words.txt", "snippets/demo/count.py"]
    folder = tmp_path / "out"
    zipfile.ZipFile(io.BytesIO(zip_bytes(article))).extractall(folder)
    nb = nbformat.read(folder / "page" / "page.ipynb", as_version=4)
    kernel.run(nb, folder / "page")
    assert nb.cells[-1].outputs[0]["text"] == "a\n"


def test_the_conversion_is_remembered_under_every_file_it_reads(tmp_path):
    """``mkdocs serve`` reuses a conversion while its digest is the same: the digest changes with
    the page, with a file the page includes (under snippets/ or not) and with a snippets/ file."""
    from scripts.hooks.article_notebooks import sources_digest

    root = _project(tmp_path)
    (root / "notes.txt").write_text("one\n")
    page = root / "docs" / "page.md"
    page.write_text(page.read_text() + '\n```text\n--8<-- "notes.txt"\n```\n')
    digests = [sources_digest(root, "page.md")]
    for path, text in [(root / "notes.txt", "two\n"), (page, page.read_text() + "More.\n"),
                       (root / "snippets" / "data" / "words.txt", "a b\n")]:
        path.write_text(text)
        digests.append(sources_digest(root, "page.md"))
    assert len(set(digests)) == len(digests), "an edit left the digest unchanged"
    assert sources_digest(root, "page.md") == digests[-1]
