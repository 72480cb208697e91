"""Small Hugging Face models with one input table, built from configuration objects.

The claims tests of docs/large-models.md and docs/pretrained-tables.md build the same four
families (GPT-2, BERT, T5, Llama) at a width drawn by Hypothesis. Each configuration is made here
once. Weights are random and nothing is downloaded. ``transformers`` is imported inside the
function, so that collecting a test file stays fast.
"""

from __future__ import annotations

from typing import NamedTuple


class SmallModel(NamedTuple):
    """One model family at a small size.

    ``cls`` is the model class, ``config`` its configuration, and ``tied_names`` the state-dict
    names of the input table followed by every name tied to it (only the input table's name
    when the output layer is not tied to it).
    """

    cls: type
    config: object
    tied_names: list[str]


def tied_families(
    vocab: int, heads: int, head_dim: int, *, llama_tied: bool = True
) -> list[SmallModel]:
    """GPT-2, BERT, T5 and Llama with one layer each, ``heads * head_dim`` wide.

    Args:
        vocab: the table's ``num_embeddings`` (``vocab_size``), at least 1.
        heads: attention heads per layer, at least 1.
        head_dim: the width of one head; the hidden width (``embedding_dim``) is
            ``heads * head_dim``.
        llama_tied: Llama's ``tie_word_embeddings``. GPT-2, BERT and T5 tie their output
            layer to the input table by default (their configurations'
            ``tie_word_embeddings``), and T5 ties one table under four names.

    Returns:
        One :class:`SmallModel` per family, in the order GPT-2, BERT, T5, Llama. The
        feed-forward layers are ``2 * hidden`` wide.
    """
    from transformers import (
        BertConfig,
        BertForMaskedLM,
        GPT2Config,
        GPT2LMHeadModel,
        LlamaConfig,
        LlamaForCausalLM,
        T5Config,
        T5ForConditionalGeneration,
    )

    D = heads * head_dim
    return [
        SmallModel(
            GPT2LMHeadModel,
            GPT2Config(
                vocab_size=vocab, n_embd=D, n_layer=1, n_head=heads, bos_token_id=0, eos_token_id=0
            ),
            ["transformer.wte.weight", "lm_head.weight"],
        ),
        SmallModel(
            BertForMaskedLM,
            BertConfig(
                vocab_size=vocab,
                hidden_size=D,
                num_hidden_layers=1,
                num_attention_heads=heads,
                intermediate_size=2 * D,
            ),
            ["bert.embeddings.word_embeddings.weight", "cls.predictions.decoder.weight"],
        ),
        SmallModel(
            T5ForConditionalGeneration,
            T5Config(
                vocab_size=vocab,
                d_model=D,
                d_kv=head_dim,
                d_ff=2 * D,
                num_layers=1,
                num_heads=heads,
            ),
            [
                "shared.weight",
                "encoder.embed_tokens.weight",
                "decoder.embed_tokens.weight",
                "lm_head.weight",
            ],
        ),
        SmallModel(
            LlamaForCausalLM,
            LlamaConfig(
                vocab_size=vocab,
                hidden_size=D,
                intermediate_size=2 * D,
                num_hidden_layers=1,
                num_attention_heads=heads,
                num_key_value_heads=heads,
                bos_token_id=0,
                eos_token_id=0,
                tie_word_embeddings=llama_tied,
            ),
            ["model.embed_tokens.weight"] + (["lm_head.weight"] if llama_tied else []),
        ),
    ]
