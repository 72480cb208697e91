"""Property tests for the general sentences of docs/pretrained-tables.md.

Each test's docstring quotes (or closely paraphrases) the sentence it proves. The page shows one
example per claim; these tests draw many (Hypothesis). Every model is built from a configuration
object with random weights: nothing is downloaded (``HF_HUB_OFFLINE=1``). ``transformers`` is
imported inside the tests that need it, so that collecting this file stays fast.
"""

from __future__ import annotations

import os
import tempfile

import torch
import torch.nn.functional as F
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from torch import nn

from tests.claim_register import proves
from tests.small_models import tied_families

os.environ.setdefault("HF_HUB_OFFLINE", "1")

#: Few examples: each one builds (and for the checkpoint test saves and loads) a small model.
MODELS = settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FAST = settings(max_examples=40, deadline=None)


def _quiet_transformers() -> None:
    """No progress bars and no warnings from ``transformers`` in the test log."""
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()


@proves("pre-tied-checkpoint-round-trip")
@MODELS
@given(
    vocab=st.integers(8, 300),
    heads=st.integers(1, 3),
    head_dim=st.sampled_from([4, 8]),
    seed=st.integers(0, 2**16),
)
def test_save_pretrained_writes_a_tied_table_once_and_loading_ties_it_again(
    vocab, heads, head_dim, seed
):
    """ "`save_pretrained` writes that tensor once, under the input table's name: the
    `model.safetensors` file has no `lm_head.weight` at all. `from_pretrained` loads the table and
    ties the output layer to it again": for GPT-2, BERT, T5 (one table, four names) and a tied
    Llama, of any vocabulary and width."""
    from safetensors import safe_open

    _quiet_transformers()
    for cls, config, names in tied_families(vocab, heads, head_dim):
        torch.manual_seed(seed)
        model = cls(config)
        assert model.get_output_embeddings().weight is model.get_input_embeddings().weight
        with tempfile.TemporaryDirectory() as folder:
            model.save_pretrained(folder)
            with safe_open(os.path.join(folder, "model.safetensors"), framework="pt") as f:
                keys = set(f.keys())
            loaded, info = cls.from_pretrained(folder, output_loading_info=True)
        assert keys & set(names) == {names[0]}, (cls.__name__, keys & set(names))
        assert info["missing_keys"] == set(), (cls.__name__, info)
        table, head = loaded.get_input_embeddings(), loaded.get_output_embeddings()
        assert head.weight is table.weight, cls.__name__
        assert head.weight.data_ptr() == table.weight.data_ptr()
        assert torch.equal(table.weight, model.get_input_embeddings().weight)


def _models_for_inputs_embeds(vocab: int, heads: int, head_dim: int) -> list[nn.Module]:
    """Four small causal or masked language models in eval mode: GPT-2 and BERT as
    :func:`tests.small_models.tied_families` builds them, its Llama with one key/value head
    (grouped-query attention), and Gemma, whose table scales its rows in its own ``forward``."""
    from transformers import GemmaConfig, GemmaForCausalLM

    D = heads * head_dim
    gpt2, bert, _, llama = tied_families(vocab, heads, head_dim)
    llama.config.num_key_value_heads = 1
    configs = [
        (gpt2.cls, gpt2.config),
        (bert.cls, bert.config),
        (llama.cls, llama.config),
        (
            GemmaForCausalLM,
            GemmaConfig(
                vocab_size=vocab,
                hidden_size=D,
                intermediate_size=2 * D,
                head_dim=head_dim,
                num_hidden_layers=1,
                num_attention_heads=heads,
                num_key_value_heads=1,
            ),
        ),
    ]
    return [cls(config).eval() for cls, config in configs]


@proves("pre-inputs-embeds-equal")
@MODELS
@given(
    vocab=st.integers(8, 300),
    heads=st.integers(1, 3),
    head_dim=st.sampled_from([4, 8]),
    data=st.data(),
    seed=st.integers(0, 2**16),
)
def test_inputs_embeds_from_the_models_own_table_gives_the_same_logits(
    vocab, heads, head_dim, data, seed
):
    """ "Built from the model's own table, `model(inputs_embeds=table(ids))` gives exactly the
    logits of `model(input_ids=ids)`": GPT-2, BERT, Llama and Gemma (whose table scales its
    rows), any vocabulary, width, batch and length, bit for bit."""
    _quiet_transformers()
    batch = data.draw(st.integers(1, 3), label="batch")
    length = data.draw(st.integers(1, 12), label="length")
    ids = torch.tensor(
        data.draw(
            st.lists(
                st.lists(st.integers(0, vocab - 1), min_size=length, max_size=length),
                min_size=batch,
                max_size=batch,
            ),
            label="ids",
        )
    )
    torch.manual_seed(seed)
    for model in _models_for_inputs_embeds(vocab, heads, head_dim):
        table = model.get_input_embeddings()
        with torch.no_grad():
            from_ids = model(input_ids=ids).logits
            from_rows = model(inputs_embeds=table(ids)).logits
        assert torch.equal(from_rows, from_ids), type(model).__name__


@proves("pre-soft-prompt-only")
@MODELS
@given(
    k=st.integers(1, 6),
    length=st.integers(1, 8),
    optimizer=st.sampled_from(["SGD", "SGD-momentum", "Adam", "AdamW"]),
    seed=st.integers(0, 2**16),
)
def test_a_soft_prompt_trains_alone_and_the_frozen_table_stays_bit_for_bit(
    k, length, optimizer, seed
):
    """ "Only the prompt changes; the table stays bit for bit as it was": for any prompt length,
    text length and seed, under SGD (with and without momentum), Adam and AdamW with weight decay,
    after `requires_grad_(False)` on the whole model."""
    from transformers import GPT2Config, GPT2LMHeadModel

    _quiet_transformers()
    torch.manual_seed(seed)
    config = GPT2Config(vocab_size=50, n_embd=16, n_layer=1, n_head=2, n_positions=16)
    model = GPT2LMHeadModel(config).eval()
    model.requires_grad_(False)
    table = model.get_input_embeddings()
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    prompt = nn.Parameter(torch.randn(k, 16) * 0.02)
    start = prompt.detach().clone()
    make = {
        "SGD": lambda ps: torch.optim.SGD(ps, lr=0.5),
        "SGD-momentum": lambda ps: torch.optim.SGD(ps, lr=0.5, momentum=0.9, weight_decay=0.01),
        "Adam": lambda ps: torch.optim.Adam(ps, lr=0.05),
        "AdamW": lambda ps: torch.optim.AdamW(ps, lr=0.05, weight_decay=0.1),
    }[optimizer]
    # The optimizer is handed every parameter, frozen ones included: they must still not move.
    opt = make([prompt, *model.parameters()])
    ids = torch.randint(50, (1, length))
    labels = torch.cat([torch.full((1, k), -100), ids], dim=1)
    for _ in range(3):
        opt.zero_grad()
        rows = torch.cat([prompt[None], table(ids)], dim=1)
        model(inputs_embeds=rows, labels=labels).loss.backward()
        opt.step()
    assert table.weight.grad is None
    for name, p in model.named_parameters():
        assert torch.equal(p, before[name]), name
    if length > 1:  # with one token there is no label to predict: the loss is empty
        assert not torch.equal(prompt, start)


def _table(rows: int, width: int, seed: int) -> torch.Tensor:
    return torch.randn(rows, width, generator=torch.Generator().manual_seed(seed))


@proves("pre-cosine-dot-ranking")
@FAST
@given(
    rows=st.integers(2, 200),
    width=st.integers(1, 64),
    length=st.floats(0.01, 100.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_cosine_and_dot_product_rank_rows_of_one_length_the_same(rows, width, length, seed):
    """ "When every row has the same length, the two rank the rows the same way": for any table
    whose rows all have one length and any vector, the rows in cosine order have dot products
    that never increase (up to float32 rounding), so the top row by one is a top row by the
    other."""
    W = F.normalize(_table(rows, width, seed), dim=1) * length
    h = _table(1, width, seed + 1)[0]
    cosine = F.cosine_similarity(h[None], W, dim=1)
    dot = W @ h
    order = cosine.argsort(descending=True)
    tolerance = 1e-5 * length * h.norm()
    assert (dot[order][1:] <= dot[order][:-1] + tolerance).all()
    assert dot[cosine.argmax()] >= dot.max() - tolerance


@proves("pre-cosine-dot-ranking")
@FAST
@given(
    rows=st.integers(1, 200),
    width=st.integers(1, 64),
    scales=st.lists(st.floats(1e-3, 1e3), min_size=1, max_size=200),
    seed=st.integers(0, 2**32 - 1),
)
def test_scaling_a_row_never_changes_its_cosine(rows, width, scales, seed):
    """ "Scaling any row by a positive number never changes its cosine" (up to float32
    rounding), while its dot product scales with it."""
    W = _table(rows, width, seed)
    h = _table(1, width, seed + 1)[0]
    s = torch.tensor((scales * rows)[:rows])
    scaled = W * s[:, None]
    before = F.cosine_similarity(h[None], W, dim=1)
    after = F.cosine_similarity(h[None], scaled, dim=1)
    torch.testing.assert_close(after, before, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(scaled @ h, (W @ h) * s, rtol=1e-4, atol=1e-4 * h.norm().item())


@proves("pre-factorised-tie")
@MODELS
@given(
    vocab=st.integers(2, 40000),
    embedding_size=st.integers(1, 256),
    heads=st.integers(1, 8),
    head_dim=st.sampled_from([8, 16, 64]),
)
def test_albert_ties_its_decoder_to_a_narrow_table_through_projections(
    vocab, embedding_size, heads, head_dim
):
    """ "This is ALBERT's factorised embedding: its table is `[vocab_size, embedding_size]`, and
    its masked-language-model head projects the hidden state down to `embedding_size` before the
    tied decoder", for any sizes (on the meta device), with `V × E` shared numbers and two
    projections of `E × H` plus their biases."""
    from transformers import AlbertConfig, AlbertForMaskedLM

    H = heads * head_dim
    config = AlbertConfig(
        vocab_size=vocab,
        embedding_size=embedding_size,
        hidden_size=H,
        num_attention_heads=heads,
        intermediate_size=2 * H,
        num_hidden_layers=1,
    )
    with torch.device("meta"):
        albert = AlbertForMaskedLM(config)
    table = albert.get_input_embeddings()
    up = albert.albert.encoder.embedding_hidden_mapping_in
    down = albert.predictions.dense
    assert table.weight.shape == (vocab, embedding_size)
    assert up.weight.shape == (H, embedding_size) and down.weight.shape == (embedding_size, H)
    assert albert.predictions.decoder.weight is table.weight
    assert albert.get_output_embeddings().weight is table.weight
    ends = table.weight.numel() + sum(p.numel() for m in (up, down) for p in m.parameters())
    assert ends == vocab * embedding_size + 2 * embedding_size * H + H + embedding_size
