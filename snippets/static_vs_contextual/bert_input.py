"""BERT's input layer, read from Hugging Face ``transformers``: its own table, not word2vec's.

A ``BertModel`` is built from a ``BertConfig`` (random weights: nothing is downloaded, no
checkpoint is read). The script asserts that its token table is an ``nn.Embedding`` with one row
per id of BERT's WordPiece vocabulary (30,522 ids in ``BertConfig``'s default, the size of
bert-base-uncased's vocabulary), filled by the model's own initialisation with N(0, 0.02)
(``initializer_range``), the padding row zeroed; that a ``BertTokenizer`` gives WordPiece ids
(``##`` pieces, not whole words); and that the encoder's input is the sum of three lookups
(token, position and segment) followed by a LayerNorm.

Sources: ``BertEmbeddings`` and ``BertPreTrainedModel._init_weights`` in
``transformers/models/bert/modeling_bert.py`` (transformers 5.23.0); Devlin et al., BERT
(https://arxiv.org/abs/1810.04805), section 3: WordPiece embeddings with a 30,000-token
vocabulary, pre-trained with the rest of the model.

Run it: ``python snippets/static_vs_contextual/bert_input.py`` (a few seconds, most of them
importing ``transformers``). ``bert_input.out`` is what it prints.
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for the model hub

import torch  # noqa: E402
from tokenizers import models  # noqa: E402
from torch import nn  # noqa: E402
from transformers import BertConfig, BertModel, BertTokenizer  # noqa: E402


def main() -> None:
    # --8<-- [start:table]
    torch.manual_seed(0)
    config = BertConfig(hidden_size=64, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=128)  # small layers; vocabulary as bert-base-uncased
    model = BertModel(config).eval()  # built from the configuration: random, nothing loaded
    table = model.get_input_embeddings()
    assert type(table) is nn.Embedding and table.weight.shape == (30_522, 64)
    std = table.weight.std().item()
    print(f"token table {tuple(table.weight.shape)}, std {std:.4f}"
          f" (initializer_range {config.initializer_range})")
    assert abs(std - config.initializer_range) < 0.0005  # drawn at random, N(0, 0.02)
    assert table.padding_idx == config.pad_token_id == 0 and not table.weight[0].any()

    # The ids it is indexed by are WordPiece ids: pieces, not the words of a word2vec file.
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "river", "bank", "##s"]
    tokenizer = BertTokenizer(vocab={w: i for i, w in enumerate(words)})  # a toy vocabulary
    assert isinstance(tokenizer.backend_tokenizer.model, models.WordPiece)
    print(tokenizer.tokenize("the river banks"), tokenizer("the river banks")["input_ids"])
    assert tokenizer.tokenize("the river banks") == ["the", "river", "bank", "##s"]
    # --8<-- [end:table]

    # --8<-- [start:sum]
    e = model.embeddings
    ids = torch.tensor([[2, 5, 6, 7, 8, 3]])  # [CLS] the river bank ##s [SEP]
    positions = torch.arange(ids.shape[1])
    segments = torch.zeros_like(ids)  # one sentence: segment 0 everywhere
    with torch.no_grad():  # eval(): no dropout after the LayerNorm
        by_hand = e.LayerNorm(e.word_embeddings(ids) + e.position_embeddings(positions)
                              + e.token_type_embeddings(segments))
        first = model(ids, output_hidden_states=True).hidden_states[0]  # the encoder's input
    torch.testing.assert_close(first, by_hand)
    assert all(type(m) is nn.Embedding for m in (e.word_embeddings, e.position_embeddings,
                                                 e.token_type_embeddings))
    # --8<-- [end:sum]


if __name__ == "__main__":
    main()
