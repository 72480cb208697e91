"""A tiny tokenised batch: pad with ``pad_sequence``, embed with ``padding_idx``, mean-pool.

Run it: ``python snippets/padding_idx/sentence_batch.py``. It builds a word-level vocabulary for
four sentences of different lengths, pads their id sequences into one ``[B, L]`` int64 tensor,
embeds it with ``nn.Embedding(V, D, padding_idx=PAD)`` and mean-pools every sentence over its real
tokens only. It checks the pooled ``[B, D]`` float32 result three ways (masked mean,
``nn.EmbeddingBag(mode="mean", padding_idx=PAD)``, and each sentence embedded on its own, without
padding), checks that left padding gives the same result, and takes one training step to check
that the pad row receives no gradient. It prints what it checks and raises ``AssertionError`` if a
check fails. The page "padding_idx" includes its regions by name; ``sentence_batch.out`` beside it
is the output shown on the page, compared by ``tests/test_snippets.py``.

Sources: ``pad_sequence`` and ``nn.EmbeddingBag`` as documented for PyTorch 2.15,
https://docs.pytorch.org/docs/2.15/generated/torch.nn.utils.rnn.pad_sequence.html and
https://docs.pytorch.org/docs/2.15/generated/torch.nn.EmbeddingBag.html.
"""

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pad_sequence

SENTENCES = [
    "the cat sat on the mat",
    "dogs bark",
    "a cat naps",
    "the dog sat",
]


# --8<-- [start:helper]
def masked_mean(vectors: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean of ``vectors`` ``[B, L, D]`` over positions where ``mask`` ``[B, L]`` (bool) is True.

    Returns ``[B, D]`` in the dtype of ``vectors``. A row whose mask is all False gives zeros
    (its count is clamped to 1) instead of ``0 / 0 = nan``.
    """
    summed = (vectors * mask.unsqueeze(-1)).sum(dim=1)  # [B, D]: pads multiplied by 0
    count = mask.sum(dim=1, keepdim=True).clamp(min=1)  # [B, 1]: real tokens per row
    return summed / count
# --8<-- [end:helper]


def main() -> None:
    # --8<-- [start:vocab]
    PAD, UNK = 0, 1  # reserved ids: <pad> first, so padding_idx=0
    words = sorted({w for s in SENTENCES for w in s.split()})
    vocab = {"<pad>": PAD, "<unk>": UNK} | {w: i + 2 for i, w in enumerate(words)}
    itos = {i: w for w, i in vocab.items()}

    def encode(sentence: str) -> torch.Tensor:
        """Whitespace tokens -> 1-D int64 ids; unknown words map to <unk>."""
        return torch.tensor([vocab.get(w, UNK) for w in sentence.lower().split()])

    seqs = [encode(s) for s in SENTENCES]  # four 1-D tensors of lengths 6, 2, 3, 3
    print("vocabulary size:", len(vocab))
    # --8<-- [end:vocab]

    # --8<-- [start:pad]
    batch = pad_sequence(seqs, batch_first=True, padding_value=PAD)  # [B, L] int64
    lengths = torch.tensor([len(s) for s in seqs])
    mask = batch != PAD  # [B, L] bool: True on real tokens

    assert batch.shape == (len(SENTENCES), int(lengths.max()))
    assert torch.equal(mask.sum(dim=1), lengths)  # PAD never occurs inside a sentence
    print(batch)
    for row in batch.tolist():
        print(" ".join(f"{itos[i]:>5}" for i in row))
    # --8<-- [end:pad]

    # --8<-- [start:embed]
    torch.manual_seed(0)
    V, D = len(vocab), 8
    emb = nn.Embedding(V, D, padding_idx=PAD)
    out = emb(batch)  # [B, L, D]

    assert out.shape == (*batch.shape, D)
    assert not out[~mask].any()  # pad positions hold row PAD: zeros, because nothing changed it

    pooled = masked_mean(out, mask)  # [B, D]: the correct sentence vectors
    naive = out.mean(dim=1)  # divides every sentence by L = 6, pads included
    # --8<-- [end:embed]

    # --8<-- [start:check]
    # 1. Ground truth: each sentence embedded on its own, with no padding at all.
    alone = torch.stack([emb(s).mean(dim=0) for s in seqs])
    torch.testing.assert_close(pooled, alone)

    # 2. EmbeddingBag over the same table leaves PAD out of each bag's count.
    bag = nn.EmbeddingBag.from_pretrained(emb.weight.detach(), mode="mean", padding_idx=PAD)
    torch.testing.assert_close(bag(batch), pooled)

    # 3. The naive mean is the right mean shrunk by length / L.
    torch.testing.assert_close(naive, pooled * (lengths / batch.shape[1]).unsqueeze(1))
    assert torch.equal(naive[0], out[0].mean(dim=0))  # ...except for the longest sentence

    # 4. Padding on the left instead gives the same sentence vectors.
    left = pad_sequence(seqs, batch_first=True, padding_value=PAD, padding_side="left")
    torch.testing.assert_close(masked_mean(emb(left), left != PAD), pooled)

    print("lengths:", lengths.tolist())
    ratio = (naive.norm(dim=1) / pooled.norm(dim=1)).tolist()
    print("naive/true norm:", [round(x, 3) for x in ratio])
    # --8<-- [end:check]

    # --8<-- [start:train]
    head = nn.Linear(D, 2)  # a two-class classifier on the pooled vectors
    labels = torch.tensor([0, 1, 0, 1])
    loss = F.cross_entropy(head(masked_mean(emb(batch), mask)), labels)
    loss.backward()

    used = torch.unique(batch[mask])  # every real token id in the batch
    assert not emb.weight.grad[PAD].any()  # 10 pad positions, zero gradient
    assert (emb.weight.grad[used].abs().sum(dim=1) > 0).all()  # every real token got some
    print("pad positions:", int((~mask).sum()), "| grad rows touched:", used.tolist())
    # --8<-- [end:train]


if __name__ == "__main__":
    main()
