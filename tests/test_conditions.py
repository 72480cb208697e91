"""Each GPU or precision sentence that once left out its condition states it (issue 49).

A review found four sentences that were true only under a condition they did not name, and 13
smaller ones. Each test here finds the paragraph of the corrected sentence, in the article and in
``docs/claims.md`` or ``docs/api-map.md`` where it appears too, and fails if the condition is
gone or the old wording is back. The numbers themselves are asserted by the pages' blocks (the
benchmarks page's against the committed data: ``tests/test_benchmarks_page.py``).
"""

from __future__ import annotations

import re

import pytest

from scripts import ROOT


def paragraphs(page: str) -> list[str]:
    """The Markdown source of ``docs/<page>``, one string per block between blank lines, its
    lines joined by single spaces and stripped of indentation (a note's body included)."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    blocks = re.split(r"\n\s*\n", text)
    return [" ".join(line.strip() for line in block.splitlines()) for block in blocks]


def paragraph(page: str, anchor: str) -> str:
    """The one paragraph of ``page`` that holds ``anchor``; fails if none or several do."""
    found = [p for p in paragraphs(page) if anchor in p]
    assert len(found) == 1, f"docs/{page}: {len(found)} paragraphs hold {anchor!r}"
    return found[0]


def page_text(page: str) -> str:
    return " ".join(paragraphs(page))


#: (page, a phrase of the paragraph, what it must say, what it must no longer say).
CONDITIONS = [
    # 1. The bfloat16 bound holds in bfloat16's normal range only.
    (
        "lookup-tables.md",
        "each output number then differs from the lookup by up to 2⁻⁸",
        ["normal range", "2⁻¹²⁶", "3.396e38"],
        [],
    ),
    ("claims.md", "within 2⁻⁸ of each number", ["normal range", "2⁻¹²⁶"], []),
    # 2. max_norm's rescaling before the index check is the CPU's; CUDA's source differs.
    ("lookup-tables.md", "checks the ids only", ["On the CPU", "if that row is longer"], []),
    (
        "lookup-tables.md",
        "PyTorch's CUDA source does this step",
        ["indices[blockIdx.x] * weights_stride0", "no bounds check", "not run"],
        [],
    ),
    (
        "claims.md",
        "that step counts `-1` from the end",
        ["on the CPU", "if its norm exceeded `max_norm`", "CUDA"],
        ["Only `padding_idx`"],
    ),
    # 3. The 10 µs floor is eager PyTorch's per-call cost on that host.
    (
        "benchmarks.md",
        "took less than 9.3 µs",
        ["eager", "Python", "torch 2.11.0", "2.1"],
        ["within a factor of two"],
    ),
    ("benchmarks.md", "from 3 to 64 times. There,", ["eager", "Python", "not of the GPU"], []),
    ("benchmarks.md", "cost about 10 µs at least", ["eager", "Python"], []),
    # 4. Compiled about as fast as eager: at the sizes run.
    (
        "benchmarks.md",
        "about as long as the eager one",
        ["sizes", "0.93 to 1.03", "42.3 against 43.2 ms", "64 ms", "272 ms"],
        [],
    ),
    # The smaller ones.
    ("lookup-tables.md", "a negative id is **not** counted", ["max_norm"], ["the one place"]),
    (
        "differentiability.md",
        "compared with `torch.testing.assert_close`",
        ["on no GPU"],
        ["CUDA GPU alike"],
    ),
    ("differentiability.md", "took 1.70 ms", ["forward and backward"], ["one backward of"]),
    ("differentiability.md", "each default result", ["1e-3", "ulps"], ["to float32 rounding"]),
    (
        "differentiability.md",
        "`norm` is computed in the table's dtype",
        ["On the CPU", "accscalar_t", "renorm_kernel"],
        [],
    ),
    (
        "large-models.md",
        "The CUDA lists do not name",
        ["float32 list", "not products"],
        ["only `linear`"],
    ),
    (
        "benchmarks.md",
        "model-scale figures below came from",
        ["three other timing scripts", "two timers", "CUDA events"],
        ["a separate timing script"],
    ),
    (
        "benchmarks.md",
        "falls further behind as `V`",
        ["In float32", "In bfloat16", "163 and 222"],
        ["to 163 to 3,000 times"],
    ),
    (
        "benchmarks.md",
        "across the `D` sweep the ratio",
        ["3.0 at `D = 16`", "8.1 at `D = 256`"],
        ["goes from 2.4 to 8.1"],
    ),
    ("benchmarks.md", "lookup_peak >= N * D * 4", ["fresh process", "caching allocator"], []),
]


@pytest.mark.parametrize(("page", "anchor", "must", "must_not"), CONDITIONS)
def test_the_sentence_states_its_condition(page, anchor, must, must_not):
    text = paragraph(page, anchor)
    for phrase in must:
        assert phrase in text, f"docs/{page}: {anchor!r} lost {phrase!r}: {text[:300]}"
    for phrase in must_not:
        assert phrase not in text, f"docs/{page}: {anchor!r} says {phrase!r} again"


@pytest.mark.parametrize(
    ("page", "old"),
    [
        ("lookup-tables.md", '"ieee": full float32, as by default'),
        ("lookup-tables.md", "`padding_idx` is the one place where a negative number"),
        ("benchmarks.md", "Every call on the GPU costs"),
        ("benchmarks.md", "The same run on the H200 also timed"),
        ("benchmarks.md", "The first command writes `results/cuda.json`"),
        ("sparsity.md", "divides by the wrong count on CPU before torch 2.14.0"),
        ("api-map.md", "right on CUDA. |"),
    ],
)
def test_the_old_sentence_is_gone(page, old):
    assert old not in page_text(page), f"docs/{page} says again: {old!r}"


def test_the_oneDNN_default_is_stated_as_release_215_has_it():
    """torch 2.15's ``mkldnn.matmul.fp32_precision`` is ``"none"``: it follows the global
    float32 matmul precision; the block asserts the global one, the comment says so."""
    assert 'by default "none"' in page_text("lookup-tables.md")


def test_the_bag_bug_names_the_releases_run():
    (title,) = [
        p for p in paragraphs("sparsity.md") if p.startswith("??? bug") and "scale_grad" in p
    ]
    assert "2.11.0 and 2.13.0" in title and "fixed in 2.14.0" in title


def test_the_api_map_gives_the_cuda_condition():
    row = paragraph("api-map.md", "Wrong on CPU for mixed counts")
    cell = row[row.index("Wrong on CPU for mixed counts") :].split(" | ")[0]
    assert "2.11.0 and 2.13.0" in cell and "H200" in cell and "#190264" in cell, cell


def test_the_memory_block_runs_in_a_fresh_process():
    """``lookup_peak == N * D * 4`` is exact only before the caching allocator holds a block."""
    text = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    block = text[text.rindex("```python", 0, text.index("lookup_peak == N * D * 4")) :]
    block = block[: block.index("\n    ```\n")]
    assert "subprocess.run" in block and "memory_reserved() == 0" in block
