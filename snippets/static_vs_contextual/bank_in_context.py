"""The word "bank" in two sentences: one static vector, two contextual ones.

A seeded ``nn.Embedding`` gives "bank" the same vector in "i sat on the river bank" and in
"i paid cash at the bank". One ``nn.TransformerEncoderLayer`` on top (untrained, seeded, no
positional encoding) gives it two different vectors, because its self-attention mixes in the
other words of the sentence. Restricting the same layer's attention to each token itself makes
the two vectors identical again, which pins the difference on attention.

Run it as a script: it asserts every claim and prints the cosine similarities. The figure script
``snippets/static_vs_contextual/figures.py`` imports :func:`build` and :func:`encode` from here,
so the figures show this exact model.

Sources: ``nn.TransformerEncoderLayer`` (post-norm when ``norm_first=False``, the default)
https://docs.pytorch.org/docs/2.15/generated/torch.nn.TransformerEncoderLayer.html and its
forward in https://github.com/pytorch/pytorch/blob/v2.15.0/torch/nn/modules/transformer.py
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

#: The sentence pair: "bank" is the last of six tokens in both, so it sits at the same position.
SENTENCES = ("i sat on the river bank", "i paid cash at the bank")
D_MODEL = 16  # embedding_dim, and the encoder's d_model
NHEAD = 2
SEED = 0


def build_vocab(sentences: tuple[str, ...] = SENTENCES) -> dict[str, int]:
    """Map each whitespace-separated word of ``sentences`` to an id (``str -> int``), sorted."""
    return {w: i for i, w in enumerate(sorted({w for s in sentences for w in s.split()}))}


def encode(sentence: str, stoi: dict[str, int]) -> torch.Tensor:
    """Ids of the words of ``sentence``: int64 tensor of shape ``[1, L]`` (a batch of one).

    Raises ``KeyError`` for a word that is not in ``stoi``.
    """
    return torch.tensor([[stoi[w] for w in sentence.split()]])


def build(vocab_size: int, seed: int = SEED) -> tuple[nn.Embedding, nn.TransformerEncoderLayer]:
    """A seeded ``nn.Embedding(vocab_size, 16)`` and one ``nn.TransformerEncoderLayer`` on top.

    The layer has ``d_model=16``, 2 heads, a 32-wide feed-forward block, ``batch_first=True``
    (inputs ``[batch, L, 16]``) and is returned in ``eval()`` mode, so its dropout is off.
    Nothing is trained: the weights are PyTorch's initialisation under ``torch.manual_seed(seed)``.
    """
    torch.manual_seed(seed)
    emb = nn.Embedding(vocab_size, D_MODEL)
    layer = nn.TransformerEncoderLayer(
        d_model=D_MODEL, nhead=NHEAD, dim_feedforward=2 * D_MODEL, batch_first=True
    )
    return emb, layer.eval()


def cos(u: torch.Tensor, v: torch.Tensor) -> float:
    """Cosine similarity of two vectors of the same shape ``[D]``, as a Python float."""
    return F.cosine_similarity(u, v, dim=0).item()


@torch.no_grad()
def main() -> None:
    # --8<-- [start:setup]
    stoi = build_vocab(SENTENCES)  # 9 words
    a, b = (encode(s, stoi) for s in SENTENCES)  # ids, shape [1, 6] each
    emb, layer = build(len(stoi))  # seeded; layer.eval(): no dropout
    BANK = 5  # "bank" is token 5 in both sentences
    assert a[0, BANK] == b[0, BANK] == stoi["bank"]

    static_a, static_b = emb(a), emb(b)  # [1, 6, 16]: the lookup
    context_a, context_b = layer(static_a), layer(static_b)  # [1, 6, 16]: after attention
    # --8<-- [end:setup]

    # --8<-- [start:compare]
    # Static: one row of the table, whatever the sentence.
    assert torch.equal(static_a[0, BANK], static_b[0, BANK])
    # Contextual: the encoder layer's "bank" differs between the sentences...
    c = cos(context_a[0, BANK], context_b[0, BANK])
    assert c < 0.99  # ...by far more than float32 rounding (~1e-7)

    # Where the difference comes from: the self-attention term alone.
    attn_a, w_a = layer.self_attn(static_a, static_a, static_a)  # weights w_a: [1, 6, 6]
    attn_b, _ = layer.self_attn(static_b, static_b, static_b)
    torch.testing.assert_close(w_a.sum(-1), torch.ones(1, 6))  # each row is a distribution
    assert cos(attn_a[0, BANK], attn_b[0, BANK]) < 0.5
    # --8<-- [end:compare]

    # --8<-- [start:formula]
    # The layer is x -> norm2(h + ff(h)) with h = norm1(x + self_attn(x)) (post-norm, the default).
    def by_hand(x: torch.Tensor) -> torch.Tensor:
        h = layer.norm1(x + layer.self_attn(x, x, x)[0])
        return layer.norm2(h + layer.linear2(F.relu(layer.linear1(h))))

    torch.testing.assert_close(by_hand(static_a), context_a)
    torch.testing.assert_close(by_hand(static_b), context_b)
    # --8<-- [end:formula]

    # --8<-- [start:ablation]
    # The same layer, the same weights, but each token may attend only to itself.
    only_self = ~torch.eye(6, dtype=torch.bool)  # True = "may not attend"
    alone_a = layer(static_a, src_mask=only_self)
    alone_b = layer(static_b, src_mask=only_self)
    assert torch.equal(alone_a[0, BANK], alone_b[0, BANK])  # identical again
    # --8<-- [end:ablation]

    # --8<-- [start:report]
    print("cosine similarity of a word with itself across the two sentences")
    print(f"{'word':<6}{'embedding':>11}{'attention':>11}{'layer':>8}{'self-only':>11}")
    for word in ("i", "the", "bank"):
        i, j = SENTENCES[0].split().index(word), SENTENCES[1].split().index(word)
        row = [
            cos(static_a[0, i], static_b[0, j]),
            cos(attn_a[0, i], attn_b[0, j]),
            cos(context_a[0, i], context_b[0, j]),
            cos(alone_a[0, i], alone_b[0, j]),
        ]
        widths = (11, 11, 8, 11)
        print(f"{word:<6}" + "".join(f"{x:>{w}.4f}" for x, w in zip(row, widths, strict=True)))
    # --8<-- [end:report]


if __name__ == "__main__":
    main()
