"""Grow an embedding table (and the output layer tied to it) for new tokens, in plain PyTorch.

Then do the same with Hugging Face ``transformers``' ``resize_token_embeddings`` on a tiny GPT-2
built from a configuration (random weights: nothing is downloaded, ``HF_HUB_OFFLINE=1``), and
check that both agree: old rows kept bit for bit, new rows at the mean of the old rows, the output
layer still the same tensor as the table. Importing ``transformers`` takes seconds, which is why
this is one file run once, not several blocks on the page.

Source of the behaviour compared against: ``PreTrainedModel.resize_token_embeddings`` and
``_init_added_embeddings_weights_with_mean`` in ``transformers/modeling_utils.py`` (5.23.0).
The reason for the mean: J. Hewitt, "Initializing new word embeddings for pretrained language
models" (2021), https://nlp.stanford.edu/~johnhew/vocab-expansion.html.
"""

from __future__ import annotations

import os

import torch
from torch import nn

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach the model hub


# --8<-- [start:grow]
def grow_embedding(emb: nn.Embedding, new_rows: int) -> nn.Embedding:
    """A new ``nn.Embedding`` with ``new_rows`` rows appended to ``emb``'s table.

    ``emb.weight``: ``[V, D]``, any floating dtype. The result's weight is ``[V + new_rows, D]``
    with the same dtype, device, ``padding_idx``, ``max_norm``, ``norm_type``,
    ``scale_grad_by_freq``, ``sparse`` and ``requires_grad``; rows ``:V`` are a bit-for-bit copy
    of ``emb.weight`` and each new row is the mean of the old rows, computed in float32 at least
    (float64 for a float64 table) and rounded to the table's dtype. ``emb`` is left unchanged.
    Raises ``ValueError`` if ``new_rows`` is negative, or positive for a table with no rows.
    """
    if new_rows < 0:
        raise ValueError(f"new_rows must be >= 0, got {new_rows}")
    old = emb.weight.detach()
    if new_rows and not old.shape[0]:
        raise ValueError("a table with no rows has no mean to start new rows from")
    grown = nn.Embedding(
        old.shape[0] + new_rows,
        old.shape[1],
        padding_idx=emb.padding_idx,
        max_norm=emb.max_norm,
        norm_type=emb.norm_type,
        scale_grad_by_freq=emb.scale_grad_by_freq,
        sparse=emb.sparse,
        device=old.device,
        dtype=old.dtype,
    )
    mean = old.mean(0, dtype=torch.promote_types(old.dtype, torch.float32))
    with torch.no_grad():
        grown.weight[: old.shape[0]] = old  # old rows, bit for bit
        grown.weight[old.shape[0] :] = mean.to(old.dtype)  # new rows: the mean
    grown.weight.requires_grad_(emb.weight.requires_grad)
    return grown


class TiedLM(nn.Module):
    """The smallest tied language model: table ``[V, D]`` in, the same tensor as the output layer.

    ``forward(ids)``: int64 ``(*)`` -> float logits ``(*, V)``. ``head.weight is embed.weight``.
    """

    def __init__(self, embed: nn.Embedding) -> None:
        super().__init__()
        self.embed = embed
        self.head = nn.Linear(embed.embedding_dim, embed.num_embeddings, bias=False)
        self.head.weight = self.embed.weight  # tied: one Parameter, two uses

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.head(self.embed(ids))

    def grow(self, new_rows: int) -> None:
        """Append ``new_rows`` tokens: a grown table, and a new head tied to it again."""
        self.embed = grow_embedding(self.embed, new_rows)
        self.head = nn.Linear(self.embed.embedding_dim, self.embed.num_embeddings, bias=False)
        self.head.weight = self.embed.weight
# --8<-- [end:grow]


def tiny_gpt2(vocab_size: int):
    """A 1-layer GPT-2 (``transformers.GPT2LMHeadModel``) with an ``[vocab_size, 8]`` table.

    Built from a ``GPT2Config`` with random weights (seeded by the caller): no download.
    Its token table is ``transformer.wte``; ``lm_head.weight`` is tied to it (GPT-2's default).
    """
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(
        vocab_size=vocab_size,
        n_positions=16,
        n_embd=8,
        n_layer=1,
        n_head=2,
        bos_token_id=2,
        eos_token_id=3,
        pad_token_id=0,
    )
    return GPT2LMHeadModel(config).eval()


def main() -> None:
    import transformers

    transformers.logging.set_verbosity_error()  # no advice printed to stderr

    # --8<-- [start:plain]
    torch.manual_seed(0)
    lm = TiedLM(nn.Embedding(20, 8))
    old = lm.embed.weight.detach().clone()
    lm.grow(3)  # three new tokens: ids 20, 21, 22

    assert lm.embed.weight.shape == (23, 8) and lm(torch.tensor([22])).shape == (1, 23)
    assert torch.equal(lm.embed.weight[:20], old)  # old rows: bit for bit
    assert torch.equal(lm.embed.weight[20:], old.mean(0).expand(3, 8))  # new rows: the mean
    assert lm.head.weight is lm.embed.weight  # still tied
    # --8<-- [end:plain]

    # --8<-- [start:hf]
    torch.manual_seed(0)
    gpt2 = tiny_gpt2(vocab_size=20)
    wte = gpt2.get_input_embeddings()  # an nn.Embedding(20, 8)
    assert gpt2.get_output_embeddings().weight is wte.weight  # tied
    before = wte.weight.detach().clone()
    mine = grow_embedding(nn.Embedding.from_pretrained(before.clone()), 3)

    returned = gpt2.resize_token_embeddings(23)  # mean_resizing=True is the default
    new = returned.weight.detach()
    assert returned is wte  # the same module, its weight swapped for a longer one
    assert new.shape == mine.weight.shape == (23, 8) and gpt2.config.vocab_size == 23
    assert torch.equal(new[:20], before)  # old rows: bit for bit, as in plain PyTorch
    assert gpt2.get_output_embeddings().weight is returned.weight  # re-tied
    # New rows: drawn from a normal at the old rows' mean, covariance scaled by 1e-9.
    torch.testing.assert_close(new[20:], mine.weight[20:], rtol=0, atol=1e-4)
    assert not torch.equal(new[20], new[21])  # drawn, not copied: equal only to ~1e-5
    print(f"largest gap to the mean: {(new[20:] - before.mean(0)).abs().max():.1e}")
    print(f"spread of the old rows:  {before.std(0).mean():.1e} (std per column)")

    # The gap scales with the old rows' spread: the same table, a hundred times wider.
    torch.manual_seed(0)
    wide = tiny_gpt2(vocab_size=20)
    with torch.no_grad():
        wide.get_input_embeddings().weight.mul_(100)
    rows = wide.get_input_embeddings().weight.detach().clone()
    gap = (wide.resize_token_embeddings(23).weight.detach()[20:] - rows.mean(0)).abs().max()
    print(f"a table 100 times wider: gap {gap:.1e}, spread {rows.std(0).mean():.1e}")
    assert gap > 1e-5  # so not "within 1e-6" whatever the table
    assert gap < 10 * 1e-9**0.5 * rows.std(0).max()  # within ten of the draw's std, √1e-9 × spread

    # Fewer old rows than columns: their covariance is singular, so no draw, the exact mean.
    few = tiny_gpt2(vocab_size=5)  # 5 rows of 8 columns: covariance of rank at most 4
    old = few.get_input_embeddings().weight.detach().clone()
    grown = few.resize_token_embeddings(7).weight.detach()
    assert torch.equal(grown[:5], old)
    torch.testing.assert_close(grown[5:], old.mean(0).expand(2, 8), rtol=0, atol=0)
    # --8<-- [end:hf]

    # --8<-- [start:no_mean]
    torch.manual_seed(0)
    gpt2 = tiny_gpt2(vocab_size=20)
    gpt2.resize_token_embeddings(23, mean_resizing=False)
    rows = gpt2.get_input_embeddings().weight.detach()[20:]  # N(0, initializer_range=0.02)
    print(f"mean_resizing=False: new rows' std {rows.std():.3f}, mean {rows.mean():+.3f}")
    assert 0.01 < rows.std() < 0.03
    # --8<-- [end:no_mean]

    # --8<-- [start:why_mean]
    torch.manual_seed(0)
    gpt2 = tiny_gpt2(vocab_size=20)
    with torch.no_grad():
        hidden = gpt2.transformer(torch.randint(4, 20, (64, 16))).last_hidden_state  # [64,16,8]
    table = gpt2.get_input_embeddings().weight.detach()  # [20, 8]: the tied output rows too
    candidates = {  # three ways to fill 3 new rows of the tied table
        "mean of old rows": table.mean(0).expand(3, 8),
        "N(0, 0.02)": torch.randn(3, 8) * 0.02,
        "N(0, 1)": torch.randn(3, 8),  # what a fresh nn.Embedding holds
    }
    for name, rows in candidates.items():
        probs = (hidden @ torch.cat([table, rows]).T).softmax(-1)  # [64, 16, 23]
        new_mass = probs[..., 20:].sum(-1)  # probability given to the 3 new tokens
        print(f"{name:<17} new tokens get {new_mass.mean():.1%} on average, "
              f"{new_mass.max():.1%} at most")
        if name == "mean of old rows":
            assert probs[..., 20:].max() <= 1 / 23 + 1e-6  # each: at most a uniform share
    # --8<-- [end:why_mean]


if __name__ == "__main__":
    main()
