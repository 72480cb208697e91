"""Property tests for the general sentences of ``docs/tokenizers.md`` ("any text", "every hidden
state", "bit for bit").

Each test's docstring quotes (or closely paraphrases) the sentence it proves. The tokenizers are
trained once per process on the diary, as the page trains them; Hypothesis draws the texts,
batches, tables and files.
"""

from __future__ import annotations

import functools

import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer
from torch import nn

from snippets.tokenizers.grow_table import TiedLM, grow_embedding, tiny_gpt2
from snippets.tokenizers.pretrained_vectors import (
    align_to_vocab,
    read_word_vectors,
    write_word2vec_text,
)
from snippets.tokenizers.train_subwords import read_lines, train_bpe, train_byte_level_bpe
from tests.claim_register import proves

#: Derandomized (the same examples on every run), no example database, no deadline.
FAST = settings(derandomize=True, database=None, max_examples=40, deadline=None)


@functools.cache
def diary() -> list[str]:
    return read_lines()


@functools.cache
def bpe_200():
    """The page's character-level BPE tokenizer (200 entries). Do not mutate."""
    return train_bpe(200, diary())


@functools.cache
def byte_level_457():
    """The page's byte-level BPE tokenizer (457 entries). Do not mutate."""
    return train_byte_level_bpe(457, diary())


def seen_characters() -> str:
    return "".join(sorted({c for line in diary() for c in line.lower()}))


# --- Why subwords make [UNK] rare -------------------------------------------------------------

#: Characters the diary never uses (none changes length when lower-cased).
UNSEEN = "jz:;'ü🦦"


@proves("tok-bpe-unseen-characters")
@FAST
@given(st.text(alphabet=seen_characters() + " \n" + UNSEEN, max_size=80))
@example("Zürich's otters 🦦")
def test_bpe_loses_only_unseen_characters(text):
    """"BPE loses only the [...] characters the diary never uses: any word spelled with
    characters it has seen is encoded": for any text, the number of ``[UNK]`` tokens equals the
    number of characters the diary never uses, so a text of seen characters has none."""
    assert not set(UNSEEN) & set(seen_characters())
    enc = bpe_200().encode(text)
    unseen = sum(c in UNSEEN for c in text.lower())
    assert enc.tokens.count("[UNK]") == unseen


@proves("tok-byte-level-round-trip")
@FAST
@given(st.text(max_size=60))
@example("Zürich's otters 🦦")
@example("\x00\t\r\n\u2028 \U0010ffff")
def test_byte_level_round_trips_any_text(text):
    """"Any string [...] goes through the byte-level tokenizer and back unchanged, with no
    unknown token": the vocabulary has no ``[UNK]``, every id is in range, and decoding the ids
    gives the text back exactly."""
    tok = byte_level_457()
    assert tok.token_to_id("[UNK]") is None
    ids = tok.encode(text).ids
    assert all(0 <= i < tok.get_vocab_size() for i in ids)
    assert tok.decode(ids) == text


def test_byte_level_corner_the_special_token_text():
    """The one corner of the round trip above: a text that spells a special token (``[PAD]``)
    is encoded as that token, which ``decode`` drops by default."""
    tok = byte_level_457()
    assert tok.encode("[PAD]").ids == [tok.token_to_id("[PAD]")]
    assert tok.decode(tok.encode("[PAD]").ids) == ""
    assert tok.decode(tok.encode("[PAD]").ids, skip_special_tokens=False) == "[PAD]"


# --- Padding and the attention mask ------------------------------------------------------------

words_of_diary = st.sampled_from(sorted({w for line in diary() for w in line.split()}))
sentences = st.lists(words_of_diary, min_size=1, max_size=10).map(" ".join)


@proves("tok-attention-mask")
@settings(derandomize=True, database=None, max_examples=20, deadline=None)
@given(st.lists(sentences, min_size=1, max_size=4), st.integers(0, 2**16))
def test_the_attention_mask_not_padding_idx_removes_the_pads(batch_texts, seed):
    """"The mask that removes them is the tokenizer's ``attention_mask``": for any batch, the
    mask is false exactly at the ``[PAD]`` ids, ``padding_idx`` makes those rows zero, and
    attention with ``key_padding_mask=~mask`` gives every sequence the outputs it gets alone,
    without pads."""
    tok = Tokenizer.from_str(bpe_200().to_str())  # a copy: padding is switched on below
    pad = tok.token_to_id("[PAD]")
    tok.enable_padding(pad_id=pad, pad_token="[PAD]")
    batch = tok.encode_batch(batch_texts)
    ids = torch.tensor([e.ids for e in batch])
    mask = torch.tensor([e.attention_mask for e in batch]).bool()
    assert torch.equal(mask, ids != pad)

    torch.manual_seed(seed)
    emb = nn.Embedding(tok.get_vocab_size(), 8, padding_idx=pad)
    attn = nn.MultiheadAttention(8, num_heads=2, batch_first=True)
    with torch.no_grad():
        x = emb(ids)
        assert not x[~mask].any()
        masked = attn(x, x, x, key_padding_mask=~mask)[0]
        for b in range(len(batch)):
            n = int(mask[b].sum())
            alone = x[b : b + 1, :n]
            torch.testing.assert_close(masked[b, :n], attn(alone, alone, alone)[0][0])


# --- Growing the table -------------------------------------------------------------------------


@proves("tok-grow-table")
@FAST
@given(
    V=st.integers(1, 30),
    D=st.integers(1, 8),
    k=st.integers(0, 10),
    dtype=st.sampled_from([torch.float32, torch.float64, torch.bfloat16]),
    pad=st.booleans(),
    frozen=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_growing_keeps_old_rows_bit_for_bit_and_the_tie(V, D, k, dtype, pad, frozen, seed):
    """"Growing is: a new, longer table, the old rows copied in, the new rows filled, and [...] a
    new output layer tied to the new table": for any table, old rows are equal bit for bit, each
    new row is the mean of the old rows, dtype, ``padding_idx`` and ``requires_grad`` are kept,
    and the grown model's head *is* its table."""
    torch.manual_seed(seed)
    emb = nn.Embedding(V, D, padding_idx=0 if pad else None, dtype=dtype)
    emb.weight.requires_grad_(not frozen)
    old = emb.weight.detach().clone()
    grown = grow_embedding(emb, k)
    assert grown.weight.shape == (V + k, D) and grown.weight.dtype == dtype
    assert torch.equal(grown.weight[:V], old) and torch.equal(emb.weight, old)
    assert torch.equal(grown.weight[V:], old.float().mean(0).to(dtype).expand(k, D))
    assert grown.padding_idx == emb.padding_idx
    assert grown.weight.requires_grad == (not frozen)

    lm = TiedLM(nn.Embedding(V, D))
    lm.grow(k)
    assert lm.head.weight is lm.embed.weight and lm.head.out_features == V + k


@proves("tok-resize-token-embeddings")
@settings(derandomize=True, database=None, max_examples=8, deadline=None)
@given(V=st.integers(4, 40), k=st.integers(1, 6), seed=st.integers(0, 2**16))
def test_plain_pytorch_growth_matches_resize_token_embeddings(V, k, seed):
    """"Hugging Face's ``resize_token_embeddings`` does the same on its models": for any
    vocabulary size and number of new tokens, GPT-2's resized table has the old rows bit for bit,
    new rows within 1e-4 of the mean of the old rows (``grow_embedding``'s), and an output
    layer that is the same tensor."""
    import transformers

    transformers.logging.set_verbosity_error()
    torch.manual_seed(seed)
    gpt2 = tiny_gpt2(V)
    before = gpt2.get_input_embeddings().weight.detach().clone()
    mine = grow_embedding(nn.Embedding.from_pretrained(before.clone()), k).weight
    theirs = gpt2.resize_token_embeddings(V + k).weight.detach()
    assert torch.equal(theirs[:V], before)
    torch.testing.assert_close(theirs[V:], mine[V:], rtol=0, atol=1e-4)
    assert gpt2.get_output_embeddings().weight is gpt2.get_input_embeddings().weight


@proves("tok-mean-rows-share")
@FAST
@given(
    n=st.integers(1, 60),
    k=st.integers(1, 20),
    D=st.integers(1, 16),
    scale=st.floats(0.01, 10.0),
    seed=st.integers(0, 2**16),
)
def test_mean_rows_get_at_most_a_uniform_share(n, k, D, scale, seed):
    """"[The mean of the old rows] bounds the probability of each of k new tokens, for every
    hidden state, by the share it would get if all were equally likely", 1 / (n + k), with a
    bias-free output layer; and the old tokens' probabilities shrink by a factor of at least
    n / (n + k)."""
    g = torch.Generator().manual_seed(seed)
    W = torch.randn(n, D, generator=g, dtype=torch.float64) * scale  # the old rows
    h = torch.randn(32, D, generator=g, dtype=torch.float64) * scale  # hidden states
    grown = torch.cat([W, W.mean(0).expand(k, D)])
    before, after = (h @ W.T).softmax(-1), (h @ grown.T).softmax(-1)
    assert (after[:, n:] <= 1 / (n + k) + 1e-12).all()
    assert (after[:, :n] >= before * n / (n + k) - 1e-12).all()


# --- Pretrained vectors ------------------------------------------------------------------------

words = st.text(min_size=1, max_size=8).filter(lambda w: w == "".join(w.split()))
finite32 = st.floats(allow_nan=False, width=32)


@proves("tok-word2vec-round-trip")
@FAST
@given(
    st.lists(words, min_size=1, max_size=12, unique=True),
    st.integers(1, 5),
    st.data(),
)
def test_word2vec_text_round_trips_float32_exactly(vocabulary, D, data):
    """"``float32`` survives the text": for any words (no whitespace) and any finite float32
    vectors, writing word2vec text and reading it back gives the same words, in order, and the
    same numbers bit for bit; the same file without its header line (GloVe's layout) reads the
    same."""
    import tempfile
    from pathlib import Path

    rows = data.draw(st.lists(st.lists(finite32, min_size=D, max_size=D),
                              min_size=len(vocabulary), max_size=len(vocabulary)))
    vectors = torch.tensor(rows, dtype=torch.float32)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "v.vec"
        write_word2vec_text(path, vocabulary, vectors)
        got_words, got = read_word_vectors(path)
        assert got_words == vocabulary and torch.equal(got, vectors)
        glove = Path(folder) / "v.txt"
        glove.write_text("".join(path.read_text(encoding="utf-8").splitlines(True)[1:]),
                         encoding="utf-8")
        assert read_word_vectors(glove)[0] == vocabulary
        assert torch.equal(read_word_vectors(glove)[1], vectors)


@proves("tok-alignment")
@FAST
@given(
    tokens=st.lists(st.text(min_size=1, max_size=4), min_size=1, max_size=15, unique=True),
    file_words=st.lists(st.text(min_size=1, max_size=4), max_size=15, unique=True),
    D=st.integers(1, 4),
    pad=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_alignment_puts_each_vector_on_its_tokens_id(tokens, file_words, D, pad, seed):
    """"A token the file has gets the file's vector; a token it lacks [...] gets a random row at
    the scale of the loaded vectors; the pad row is zeros": for any vocabulary (in any id order)
    and any file, row ``vocab[t]`` is exactly ``t``'s vector when the file has ``t``."""
    if not file_words:
        file_words = ["x"]
    g = torch.Generator().manual_seed(seed)
    order = torch.randperm(len(tokens), generator=g).tolist()
    vocab = dict(zip(tokens, order, strict=True))  # ids in any order
    vectors = torch.randn(len(file_words), D, generator=g)
    torch.manual_seed(seed)
    pad_id = vocab[tokens[0]] if pad else None
    table, found = align_to_vocab(vocab, file_words, vectors, pad_id=pad_id)
    assert table.shape == (len(tokens), D) and table.dtype == torch.float32
    for t, i in vocab.items():
        assert bool(found[i]) == (t in file_words)
        if i == pad_id:
            assert not table[i].any()
        elif t in file_words:
            assert torch.equal(table[i], vectors[file_words.index(t)])
    assert torch.isfinite(table).all()  # even from a file holding a single number


def test_wordpiece_unk_count_is_the_same_in_every_run():
    """"[WordPiece's] ``[UNK]`` count [...] depends on nothing but the characters the vocabulary
    holds with and without ``##``, the same in every run": over repeated trainings (whose
    vocabularies may differ, tokenizers#1794) the single-character pieces and the ``[UNK]`` count
    on the held-out letter never change."""
    from snippets.tokenizers.train_subwords import LETTER, count_unk, train_wordpiece

    letter = read_lines(LETTER)
    runs = [train_wordpiece(200, diary()) for _ in range(8)]
    alphabets = {
        frozenset(t for t in tok.get_vocab() if len(t.removeprefix("##")) == 1) for tok in runs
    }
    assert len(alphabets) == 1
    assert {count_unk(tok, letter) for tok in runs} == {11}
