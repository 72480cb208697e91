"""The API map lists every parameter of every embedding API, with the right default and a link.

``docs/api-map.md`` holds one table per callable, announced by an HTML comment naming it
(``<!-- api: torch.nn.Embedding.__init__ -->``). This test reads the callables' real signatures
with :mod:`inspect` and fails when

* a parameter of the installed PyTorch has no row (so a new parameter cannot go unnoticed), or a
  row names a parameter that does not exist;
* a row's default differs from the real default;
* a row has no link to a section of the site, or the link's page or anchor does not exist.
"""

from __future__ import annotations

import importlib
import inspect
import re

import pytest
import torch

from scripts import ROOT
from tests.markdown_model import heading_ids

PAGE = ROOT / "docs" / "api-map.md"
API_COMMENT = re.compile(r"<!--\s*api:\s*(?P<target>[\w.]+)\s*-->")
LINK = re.compile(r"\]\((?P<page>[\w./-]+\.md)#(?P<anchor>[\w-]+)\)")

#: Every callable the map must cover (issue: nn.Embedding, its from_pretrained, nn.EmbeddingBag,
#: its from_pretrained, F.embedding, F.embedding_bag, F.one_hot), plus the modules' forward().
REQUIRED = [
    "torch.nn.Embedding.__init__",
    "torch.nn.Embedding.forward",
    "torch.nn.Embedding.from_pretrained",
    "torch.nn.EmbeddingBag.__init__",
    "torch.nn.EmbeddingBag.forward",
    "torch.nn.EmbeddingBag.from_pretrained",
    "torch.nn.functional.embedding",
    "torch.nn.functional.embedding_bag",
    "torch.nn.functional.one_hot",
]


def resolve(dotted: str):
    """Import ``a.b.C.meth`` and return the object. Raises ``ImportError``/``AttributeError``."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def real_parameters(dotted: str) -> dict[str, object]:
    """Parameter name -> default (``inspect.Parameter.empty`` when required), ``self`` dropped.

    Built-ins without a signature (``F.one_hot``) are read from the first line of their
    docstring, e.g. ``one_hot(tensor, num_classes=-1) -> LongTensor``.
    """
    fn = resolve(dotted)
    try:
        sig = inspect.signature(fn)
    except ValueError:
        first = fn.__doc__.strip().splitlines()[0]
        args = re.match(r"\w+\((?P<args>.*)\)", first)["args"]
        namespace: dict = {}
        exec(f"def _f({args}): pass", namespace)  # noqa: S102 - PyTorch's own docstring
        sig = inspect.signature(namespace["_f"])
    return {n: p.default for n, p in sig.parameters.items() if n != "self"}


def documented_tables() -> dict[str, list[list[str]]]:
    """Callable -> the rows (lists of cell texts) of the table that follows its api comment."""
    tables: dict[str, list[list[str]]] = {}
    current = None
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        m = API_COMMENT.search(line)
        if m:
            current = m["target"]
            tables[current] = []
            continue
        if current is None:
            continue
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if set("".join(cells)) <= set("-: ") or cells[0].lower() == "parameter":
                continue  # separator or header
            tables[current].append(cells)
        elif line.strip() and tables[current]:
            current = None  # the table ended
    return tables


def page_anchors(page: str) -> frozenset[str]:
    """Heading ids of ``docs/<page>`` as MkDocs' toc extension generates them."""
    return frozenset(
        id_
        for _level, id_, _title in heading_ids((ROOT / "docs" / page).read_text(encoding="utf-8"))
    )


def default_text(cell: str) -> str:
    return cell.strip().strip("`")


TABLES = documented_tables() if PAGE.exists() else {}


def test_every_required_callable_has_a_table():
    missing = [t for t in REQUIRED if t not in TABLES]
    assert not missing, f"no table for {missing} in docs/api-map.md"


#: Every table on the page is checked, the required ones and any other (tokenizers, transformers).
CHECKED = sorted(set(REQUIRED) | set(TABLES))


@pytest.mark.parametrize("target", CHECKED)
def test_table_matches_the_real_signature(target):
    rows = TABLES.get(target, [])
    real = real_parameters(target)
    documented = {default_text(r[0]): r for r in rows}
    missing = [p for p in real if p not in documented]
    extra = [p for p in documented if p not in real]
    assert not missing, f"{target}: parameters without an entry: {missing}"
    assert not extra, f"{target}: entries for parameters that do not exist: {extra}"
    for name, default in real.items():
        shown = default_text(documented[name][1])
        expected = "required" if default is inspect.Parameter.empty else repr(default)
        assert shown == expected, (
            f"{target}({name}=…): page says {shown!r}, the installed package has {expected!r}"
        )


@pytest.mark.parametrize("target", CHECKED)
def test_every_parameter_links_to_a_section_that_exists(target):
    for row in TABLES.get(target, []):
        links = LINK.findall(row[-1])
        assert links, f"{target}: {row[0]} has no link to where it is demonstrated"
        for page, anchor in links:
            assert (ROOT / "docs" / page).is_file(), f"{target}: {row[0]} links to missing {page}"
            assert anchor in page_anchors(page), (
                f"{target}: {row[0]} links to missing {page}#{anchor}"
            )


def test_the_check_notices_a_removed_parameter(monkeypatch):
    """Dropping one row from a table must make the signature check fail."""
    rows = TABLES["torch.nn.Embedding.__init__"]
    trimmed = [r for r in rows if default_text(r[0]) != "padding_idx"]
    monkeypatch.setitem(TABLES, "torch.nn.Embedding.__init__", trimmed)
    with pytest.raises(AssertionError, match="padding_idx"):
        test_table_matches_the_real_signature("torch.nn.Embedding.__init__")


# What some rows say, beyond their defaults: each check fails if the row's earlier, wider wording
# were true.


def test_sparse_gradient_has_one_entry_per_lookup_but_none_for_padding():
    """``nn.Embedding(sparse=True)``: one entry per lookup, lookups of ``padding_idx`` left out."""
    import torch
    from torch import nn

    emb = nn.Embedding(5, 2, padding_idx=0, sparse=True)
    emb(torch.tensor([3, 0, 3, 1])).sum().backward()
    assert emb.weight.grad._indices().tolist() == [[3, 3, 1]]  # 4 lookups, 3 entries


def test_per_sample_weights_must_have_the_table_dtype():
    """``per_sample_weights``: the table's dtype, not any floating dtype."""
    import torch
    import torch.nn.functional as F

    ids, offsets, table = torch.tensor([1, 2]), torch.tensor([0]), torch.randn(4, 3)
    F.embedding_bag(ids, table, offsets, mode="sum", per_sample_weights=torch.ones(2))
    with pytest.raises(RuntimeError, match="same type"):
        F.embedding_bag(
            ids, table, offsets, mode="sum", per_sample_weights=torch.ones(2, dtype=torch.float64)
        )


def test_limit_alphabet_counts_the_initial_alphabet_too():
    """``initial_alphabet``: its characters join the alphabet only as far as ``limit_alphabet``
    allows; without a limit, all of them do."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    def alphabet(**options):
        tokenizer = Tokenizer(models.BPE(unk_token="[UNK]"))
        tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
        trainer = trainers.BpeTrainer(vocab_size=100, show_progress=False, **options)
        tokenizer.train_from_iterator(["abc abd"] * 3, trainer)
        return {token for token in tokenizer.get_vocab() if len(token) == 1}

    initial = ["x", "y", "z", "w"]  # none of them in the text
    assert set(initial) <= alphabet(initial_alphabet=initial)
    limited = alphabet(initial_alphabet=initial, limit_alphabet=2)
    assert len(limited) == 2 and not set(initial) <= limited


#: Converts a float embedding with ``from_float`` and prints the category of each warning whose
#: message says "deprecated", one per line.
FROM_FLOAT = """
import warnings
from torch import nn
from torch.ao.nn.quantized import Embedding
from torch.ao.quantization import float_qparams_weight_only_qconfig

float_module = nn.Embedding(10, 4)
float_module.qconfig = float_qparams_weight_only_qconfig
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    Embedding.from_float(float_module)
for w in caught:
    if "deprecated" in str(w.message):
        print(w.category.__name__)
"""


def test_quantized_from_float_warns_with_a_user_warning():
    """``from_float`` in the pinned PyTorch: a ``UserWarning`` (not a ``DeprecationWarning``)
    whose message says that quantized tensor creation is deprecated. In a process of its own:
    PyTorch gives this warning once per process, so an earlier test in the same worker would
    have taken it."""
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-c", FROM_FLOAT], capture_output=True, text=True, check=True, timeout=120
    )
    categories = run.stdout.split()
    assert categories and set(categories) == {"UserWarning"}, run.stdout + run.stderr


def test_quantized_bag_takes_float32_weights_only():
    """``nnq.EmbeddingBag``'s ``per_sample_weights``: float32; float64 or float16 raise."""
    import warnings

    import torch
    from torch import nn
    from torch.ao.nn.quantized import EmbeddingBag
    from torch.ao.quantization import float_qparams_weight_only_qconfig

    float_module = nn.EmbeddingBag(10, 4, mode="sum")
    float_module.qconfig = float_qparams_weight_only_qconfig
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        bag = EmbeddingBag.from_float(float_module)
    ids, offsets = torch.tensor([1, 2, 3]), torch.tensor([0, 2])
    bag(ids, offsets, per_sample_weights=torch.ones(3))
    for dtype in (torch.float64, torch.float16):
        with pytest.raises(RuntimeError, match="expected scalar type Float"):
            bag(ids, offsets, per_sample_weights=torch.ones(3, dtype=dtype))


def test_from_pretrained_takes_an_integer_table_only_frozen():
    """The map's ``embeddings`` rows: ``nn.Embedding.from_pretrained`` looks up an integer table
    while it is frozen and raises ``RuntimeError`` when asked to train it;
    ``nn.EmbeddingBag.from_pretrained`` takes only a floating table."""
    table = torch.tensor([[1, 2], [3, 4]])
    emb = torch.nn.Embedding.from_pretrained(table)
    assert torch.equal(emb(torch.tensor([1, 0])), table[[1, 0]])
    with pytest.raises(RuntimeError, match="floating point"):
        torch.nn.Embedding.from_pretrained(table, freeze=False)
    with pytest.raises(RuntimeError, match="floating point"):
        torch.nn.EmbeddingBag.from_pretrained(table)
