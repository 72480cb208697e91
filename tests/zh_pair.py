"""A made-up English page and its faithful Chinese translation, for the tests of the Chinese
edition's checks (``tests/test_translations.py``, ``tests/test_zh_terms.py``,
``tests/test_zh_prose.py``): each test breaks one thing in a copy and watches its check find it.

The pair holds what real pages hold: a title with its short answer, figures with a caption, a claim
id, a footnote, inline and displayed math, a Python block with a comment and a checked output, a
skipped block, a snippet include, a content tab, a collapsed note with a block inside, a list and
a table. The Chinese page's markers name the English sections' fingerprints (:func:`chinese`).
"""

from __future__ import annotations

from scripts.hooks.markdown_blocks import sections
from scripts.hooks.zh import fingerprint

ENGLISH = """---
description: A made-up page for the tests.
---

# Tables of rows

**Short answer.** `nn.Embedding(5, 3)` holds 5 rows of 3 numbers. Calling it returns rows
([why](#what-it-returns)).

![Five rows of three numbers.](figures/probe/rows-light.svg#only-light){ loading=lazy }
![Five rows of three numbers.](figures/probe/rows-dark.svg#only-dark){ loading=lazy }
/// caption
The table under `torch.manual_seed(0)`.
///

## What it returns

A lookup of id 2 returns row 2, and 0.5 % of 10,000 draws land past 1e-3.[^init] The rule
`#!math y = W_{i,:}` holds for every id.
{ #claim-probe-row }

```python
import torch

torch.manual_seed(0)
print(torch.tensor([2]).item())  # the id
```

<!--pytest-codeblocks:expected-output-->
```text
2
```

```math
y = x W^{\\top}
```

See [the sparsity page](sparsity.md#coo) and the [docs](https://docs.pytorch.org/docs/stable/).

## Where it differs

- A list item with 3 ids.
- Another item.

| ids | rows |
|-----|------|
| 4   | `[4, 3]` |

=== "Embedding"

    ```python
    --8<-- "snippets/probe/rows.py:lookup"
    ```

??? note "A corner"
    Inside the note, 7 rows.

    <!--pytest.mark.skip(reason="shows a mistake")-->
    ```python
    emb(torch.tensor([5]))  # raises IndexError
    ```

### A smaller part

Nothing more here.

[^init]: PyTorch, [Embedding](https://docs.pytorch.org/docs/2.15/generated/torch.nn.Embedding.html):
    "initialized from N(0, 1)".
"""

CHINESE_TEMPLATE = """---
description: 用于测试的虚构页面。
---

# 行的表
<!-- en: {title} -->

**简短回答。** `nn.Embedding(5, 3)` 存有 5 行，每行 3 个数。调用它返回行（[原因](#what-it-returns)）。

![五行，每行三个数。](figures/probe/rows-light.svg#only-light){{ loading=lazy }}
![五行，每行三个数。](figures/probe/rows-dark.svg#only-dark){{ loading=lazy }}
/// caption
`torch.manual_seed(0)` 下的表。
///

## 它返回什么 {{ #what-it-returns }}
<!-- en: {what-it-returns} -->

查找 id 2 返回第 2 行；10,000 次抽取中有 0.5 % 超过 1e-3。[^init]对每个 id，规则
`#!math y = W_{{i,:}}` 都成立。
{{ #claim-probe-row }}

```python
import torch

torch.manual_seed(0)
print(torch.tensor([2]).item())  # 这个 id
```

<!--pytest-codeblocks:expected-output-->
```text
2
```

```math
y = x W^{{\\top}}
```

见[稀疏性一页](sparsity.md#coo)和[文档](https://docs.pytorch.org/docs/stable/)。

## 它在哪里不同 {{ #where-it-differs }}
<!-- en: {where-it-differs} -->

- 一个列表项，含 3 个 id。
- 另一项。

| id | 行 |
|----|----|
| 4  | `[4, 3]` |

=== "Embedding"

    ```python
    --8<-- "snippets/probe/rows.py:lookup"
    ```

??? note "一个角落"
    注释里有 7 行。

    <!--pytest.mark.skip(reason="shows a mistake")-->
    ```python
    emb(torch.tensor([5]))  # raises IndexError
    ```

### 更小的部分 {{ #a-smaller-part }}
<!-- en: {a-smaller-part} -->

这里没有更多内容。

[^init]: PyTorch，[Embedding](https://docs.pytorch.org/docs/2.15/generated/torch.nn.Embedding.html)：
    "initialized from N(0, 1)"。
"""


def chinese(english: str = ENGLISH) -> str:
    """The Chinese page, its markers naming the fingerprints of ``english``'s sections (a marker
    goes stale when the English section it names changes)."""
    marks = {s.anchor or "title": fingerprint(s) for s in sections(english)}
    return CHINESE_TEMPLATE.format(**marks)


def replace_once(text: str, old: str, new: str) -> str:
    """``text`` with its one ``old`` replaced by ``new``; raises ``AssertionError`` when ``old``
    does not occur exactly once (a break that breaks nothing would prove nothing)."""
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
    return text.replace(old, new)
