"""Train a tiny static embedding (skip-gram, full softmax) on a 4.7 KB diary, in about a second.

The text, ``snippets/data/river_town.txt``, was written for this project (see
``snippets/data/README.md``). Each word is asked to predict the words up to two places to its
left and right (skip-gram: Mikolov et al., 2013, https://arxiv.org/abs/1301.3781), with a full
softmax over the vocabulary instead of negative sampling, because the vocabulary is small. After
50 full-batch Adam steps, words used in the same slots ("monday" and "tuesday", "red" and
"green", "apples" and "pears") have nearby vectors, which they did not have before training.

Deterministic: seeded, and run on one CPU thread (the thread count is restored afterwards) so the
printed numbers do not depend on the machine's core count.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

TEXT = Path(__file__).resolve().parent.parent / "data" / "river_town.txt"

#: Words grouped by what they name, for scoring neighbours (the grouping is this project's).
GROUPS = {
    "day": "monday tuesday wednesday thursday friday saturday sunday".split(),
    "time of day": "dawn noon dusk".split(),
    "colour": "red green yellow blue brown white".split(),
    "fruit": "apples pears cherries plums".split(),
    "animal": "dog cat fox hens heron".split(),
}


def tokens(path: Path = TEXT) -> list[str]:
    """The lower-cased words of ``path``, skipping lines that start with ``#``.

    A word is a run of ASCII letters; punctuation and digits are dropped. Raises ``OSError`` if
    the file cannot be read.
    """
    lines = path.read_text(encoding="utf-8").splitlines()
    return re.findall(r"[a-z]+", " ".join(ln for ln in lines if not ln.startswith("#")).lower())


def skipgram_pairs(ids: torch.Tensor, window: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(centre, context) id pairs for every offset ``1..window`` on both sides.

    ``ids``: int64 ``[N]``. Returns two int64 tensors of the same length
    ``2 * sum(N - k for k in 1..window)``.
    """
    centre, context = [], []
    for k in range(1, window + 1):
        centre += [ids[:-k], ids[k:]]
        context += [ids[k:], ids[:-k]]
    return torch.cat(centre), torch.cat(context)


def nearest(table: torch.Tensor, word: str, stoi: dict[str, int], itos: list[str], k: int = 3):
    """The ``k`` words whose rows of ``table`` (``[V, D]``) have the highest cosine similarity
    with ``word``'s row, excluding ``word`` itself: a list of ``(word, similarity)``."""
    unit = F.normalize(table, dim=1)
    sims = unit @ unit[stoi[word]]
    sims[stoi[word]] = -2.0  # below any cosine
    top = sims.topk(k)
    return [(itos[i], s) for s, i in zip(top.values.tolist(), top.indices.tolist(), strict=True)]


def group_hits(table: torch.Tensor, stoi: dict[str, int], itos: list[str]) -> int:
    """How many of the 25 words in ``GROUPS`` have a nearest neighbour from their own group."""
    return sum(
        nearest(table, w, stoi, itos, k=1)[0][0] in words
        for words in GROUPS.values()
        for w in words
    )


def main() -> None:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        train_and_report()
    finally:
        torch.set_num_threads(threads)


def train_and_report() -> tuple[list[str], torch.Tensor]:
    """Train, print and check what the page shows; return the vocabulary and the trained table.

    Returns ``(itos, table)``: the 143 words in id order and the float32 ``[143, 16]`` table
    (``snippets/tokenizers/pretrained_vectors.py`` saves it as word2vec-format text).
    """
    # --8<-- [start:data]
    words = tokens()  # 867 words of the diary
    itos = sorted(set(words))  # the vocabulary: 143 distinct words
    stoi = {w: i for i, w in enumerate(itos)}
    centre, context = skipgram_pairs(torch.tensor([stoi[w] for w in words]), window=2)
    print(f"{len(words)} words, {len(itos)} distinct, {len(centre)} (centre, context) pairs")
    # --8<-- [end:data]

    # --8<-- [start:model]
    torch.manual_seed(0)
    emb = nn.Embedding(len(itos), 16)  # the static embedding we keep
    out = nn.Linear(16, len(itos))  # scores every word as the context: a full softmax
    before = emb.weight.detach().clone()
    opt = torch.optim.Adam([*emb.parameters(), *out.parameters()], lr=0.1)
    losses = []
    for _ in range(50):  # full batch: all pairs every step
        loss = F.cross_entropy(out(emb(centre)), context)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    after = emb.weight.detach()
    uniform = math.log(len(itos))  # the loss of a model that guesses every word equally
    print(f"loss {losses[0]:.2f} -> {losses[-1]:.2f} (a uniform guess scores {uniform:.2f})")
    # --8<-- [end:model]

    # --8<-- [start:neighbours]
    hits_before = group_hits(before, stoi, itos)
    hits_after = group_hits(after, stoi, itos)
    print(f"nearest neighbour in the same group: {hits_before}/25 before, {hits_after}/25 after")
    assert hits_before <= 2  # a random table: neighbours are chance
    assert hits_after >= 15  # trained: most words sit next to their own kind

    for word in ("monday", "dawn", "red", "apples", "cat"):
        group = next(g for g in GROUPS.values() if word in g)
        top = nearest(after, word, stoi, itos)
        assert top[0][0] in group, (word, top)  # the nearest word is one of the same kind
        print(f"{word:>7}: " + ", ".join(f"{w} {s:.2f}" for w, s in top))
    # --8<-- [end:neighbours]

    # --8<-- [start:mistake]
    # "evening" is not a day, but in this diary it fills a day's slot: "... the ferry crossed".
    text = " ".join(words)
    assert "in the evening the ferry crossed" in text and "on monday the ferry crossed" in text
    assert "evening" in [w for w, _ in nearest(after, "monday", stoi, itos)]
    # --8<-- [end:mistake]

    # --8<-- [start:bank]
    # Static, even after training: "bank" has one vector for the river bank and the money bank.
    river = torch.tensor([stoi[w] for w in "the heron stood on the bank".split()])
    money = torch.tensor([stoi[w] for w in "my sister put money in the bank".split()])
    assert torch.equal(emb(river)[-1], emb(money)[-1])
    # --8<-- [end:bank]
    return itos, after


if __name__ == "__main__":
    main()
