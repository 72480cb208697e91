"""Property tests for the general sentences of ``docs/tokenizers.md`` ("any text", "every hidden
state", "bit for bit").

Each test's docstring quotes (or closely paraphrases) the sentence it proves. The tokenizers are
trained once per process on the diary, as the page trains them; Hypothesis draws the texts,
batches, tables and files.
"""

from __future__ import annotations

import functools

import pytest
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
@given(
    st.text(
        alphabet=seen_characters()
        + seen_characters().upper()
        + " \n\t\u00a0\u2003"
        + UNSEEN
        + UNSEEN.upper(),
        max_size=80,
    )
)
@example("Zürich's otters 🦦")
@example("THE HERON, JUST AS ZÜRICH'S.")
def test_bpe_loses_only_unseen_characters(text):
    """ "BPE loses only the [...] characters the diary never uses: any word spelled with
    characters it has seen is encoded": for any text (in either case: the tokenizer lower-cases,
    and with any whitespace between words), the number of ``[UNK]`` tokens equals the number of
    characters the diary never uses, so a text of seen characters has none."""
    assert not set(UNSEEN) & set(seen_characters())
    enc = bpe_200().encode(text)
    unseen = sum(c in UNSEEN for c in text.lower())
    assert enc.tokens.count("[UNK]") == unseen


@proves("tok-byte-level-round-trip")
@FAST
@given(st.text(max_size=60).filter(lambda t: "[PAD]" not in t))  # the exception: next test
@example("Zürich's otters 🦦")
@example("\x00\t\r\n\u2028 \U0010ffff")
def test_byte_level_round_trips_any_text(text):
    """ "Any string [...] goes through the byte-level tokenizer and back unchanged, with no
    unknown token", except a text that spells the special token ``[PAD]``: the vocabulary has
    no ``[UNK]``, every id is in range, and decoding the ids gives the text back exactly."""
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
    assert tok.decode(tok.encode("a [PAD] b").ids) != "a [PAD] b"  # inside a text, too


# --- Padding and the attention mask ------------------------------------------------------------

words_of_diary = st.sampled_from(sorted({w for line in diary() for w in line.split()}))
#: Sentences of diary words, now and then with the special token spelled out in them.
sentences = st.lists(words_of_diary | st.just("[PAD]"), min_size=1, max_size=10).map(" ".join)


@proves("tok-attention-mask")
@settings(derandomize=True, database=None, max_examples=20, deadline=None)
@given(st.lists(sentences, min_size=1, max_size=4), st.integers(0, 2**16))
@example(["The heron waited.", "The [PAD] heron waited on the bank."], 0)
def test_the_attention_mask_not_padding_idx_removes_the_pads(batch_texts, seed):
    """ "The mask that removes them is the tokenizer's ``attention_mask``": for any batch, the
    mask is false exactly at the padding appended to each sequence, whose ids are ``[PAD]``'s,
    and equals ``ids != pad`` when no text spells ``[PAD]`` (a text that does gets the pad id
    with mask 1); ``padding_idx`` makes the padding rows zero, and attention with
    ``key_padding_mask=~mask`` gives every sequence the outputs it gets alone, without pads."""
    tok = Tokenizer.from_str(bpe_200().to_str())  # a copy: padding is switched on below
    pad = tok.token_to_id("[PAD]")
    lengths = [len(e.ids) for e in tok.encode_batch(batch_texts)]  # before padding
    tok.enable_padding(pad_id=pad, pad_token="[PAD]")
    batch = tok.encode_batch(batch_texts)
    ids = torch.tensor([e.ids for e in batch])
    mask = torch.tensor([e.attention_mask for e in batch]).bool()
    appended = torch.arange(ids.shape[1])[None, :] >= torch.tensor(lengths)[:, None]
    assert torch.equal(~mask, appended) and (ids[appended] == pad).all()
    spelled = any("[PAD]" in t for t in batch_texts)
    assert torch.equal(mask, ids != pad) == (not spelled)

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
    V=st.integers(0, 30),
    D=st.integers(1, 8),
    k=st.integers(0, 10),
    dtype=st.sampled_from([torch.float32, torch.float64, torch.bfloat16, torch.float16]),
    pad=st.booleans(),
    frozen=st.booleans(),
    options=st.fixed_dictionaries(
        {
            "max_norm": st.sampled_from([None, 1.5]),
            "scale_grad_by_freq": st.booleans(),
            "sparse": st.booleans(),
        }
    ),
    seed=st.integers(0, 2**16),
)
@example(
    V=0,
    D=3,
    k=2,
    dtype=torch.float32,
    pad=False,
    frozen=False,
    options={"max_norm": None, "scale_grad_by_freq": False, "sparse": False},
    seed=0,
)
@example(
    V=7,
    D=3,
    k=2,
    dtype=torch.float64,
    pad=False,
    frozen=False,
    options={"max_norm": None, "scale_grad_by_freq": False, "sparse": False},
    seed=0,
)
def test_growing_keeps_old_rows_bit_for_bit_and_the_tie(V, D, k, dtype, pad, frozen, options, seed):
    """ "Growing is: a new, longer table, the old rows copied in, the new rows filled, and [...] a
    new output layer tied to the new table": for any table, old rows are equal bit for bit, each
    new row is the mean of the old rows (to the table's own precision: a float64 table's mean is
    not rounded to float32), the layer's options and ``requires_grad`` are kept, and the grown
    model's head *is* its table. A table with no rows cannot grow (no mean)."""
    torch.manual_seed(seed)
    emb = nn.Embedding(V, D, padding_idx=0 if pad and V else None, dtype=dtype, **options)
    emb.weight.requires_grad_(not frozen)
    old = emb.weight.detach().clone()
    if V == 0 and k > 0:
        with pytest.raises(ValueError, match="no rows"):
            grow_embedding(emb, k)
        return
    grown = grow_embedding(emb, k)
    assert grown.weight.shape == (V + k, D) and grown.weight.dtype == dtype
    assert torch.equal(grown.weight[:V], old) and torch.equal(emb.weight, old)
    if k:
        exact = old.double().mean(0)  # the mean, computed in float64
        new = grown.weight[V:].detach()
        assert torch.equal(new, new[:1].expand(k, D))  # every new row the same
        # within half an ulp of the table's dtype, plus float32 accumulation for 16-bit tables
        tolerance = (
            torch.finfo(dtype).eps * exact.abs()
            + (1e-6 if dtype != torch.float64 else 1e-15) * old.double().abs().max()
        )
        assert ((new[0].double() - exact).abs() <= tolerance).all()
    for name in ("padding_idx", "max_norm", "norm_type", "scale_grad_by_freq", "sparse"):
        assert getattr(grown, name) == getattr(emb, name), name
    assert grown.weight.requires_grad == (not frozen)

    lm = TiedLM(nn.Embedding(max(V, 1), D))
    lm.grow(k)
    assert lm.head.weight is lm.embed.weight and lm.head.out_features == max(V, 1) + k


def _tiny_hf_model(kind: str, V: int):
    """A one-layer ``transformers`` model with a ``[V, 8]`` table, random weights."""
    from transformers import (
        BertConfig,
        BertForMaskedLM,
        LlamaConfig,
        LlamaForCausalLM,
        T5Config,
        T5ForConditionalGeneration,
    )

    if kind == "GPT-2":
        return tiny_gpt2(V)
    if kind == "BERT":
        return BertForMaskedLM(
            BertConfig(
                vocab_size=V,
                hidden_size=8,
                num_hidden_layers=1,
                num_attention_heads=2,
                intermediate_size=16,
            )
        )
    if kind == "Llama, untied":
        return LlamaForCausalLM(
            LlamaConfig(
                vocab_size=V,
                hidden_size=8,
                intermediate_size=16,
                num_hidden_layers=1,
                num_attention_heads=2,
                bos_token_id=0,
                eos_token_id=0,
                tie_word_embeddings=False,
            )
        )
    return T5ForConditionalGeneration(
        T5Config(vocab_size=V, d_model=8, d_kv=4, d_ff=16, num_layers=1, num_heads=2)
    )


@proves("tok-resize-token-embeddings")
@settings(derandomize=True, database=None, max_examples=8, deadline=None)
@given(
    V=st.integers(4, 40),
    k=st.integers(1, 6),
    seed=st.integers(0, 2**16),
    kind=st.sampled_from(["GPT-2", "BERT", "Llama, untied", "T5"]),
)
@example(V=20, k=3, seed=0, kind="Llama, untied")
@example(V=20, k=3, seed=0, kind="T5")
def test_plain_pytorch_growth_matches_resize_token_embeddings(V, k, seed, kind):
    """ "Hugging Face's ``resize_token_embeddings`` does the same on its models": for any
    vocabulary size and number of new tokens, and for GPT-2, BERT, T5 (tied) and an untied
    Llama, the resized table has the old rows bit for bit and new rows at the mean of the old
    rows (``grow_embedding``'s) up to the draw with covariance scaled by 1e-9; a tied output layer
    is the same tensor as the table, an untied one grows the same way from its own rows."""
    import transformers

    transformers.logging.set_verbosity_error()
    torch.manual_seed(seed)
    model = _tiny_hf_model(kind, V)
    before = model.get_input_embeddings().weight.detach().clone()
    head_before = model.get_output_embeddings().weight.detach().clone()
    tied = model.get_output_embeddings().weight is model.get_input_embeddings().weight
    assert tied == (kind != "Llama, untied")
    mine = grow_embedding(nn.Embedding.from_pretrained(before.clone()), k).weight
    theirs = model.resize_token_embeddings(V + k).weight.detach()
    assert torch.equal(theirs[:V], before)
    spread = before.std().item()  # the draw's std is about sqrt(1e-9) = 3e-5 of the rows'
    torch.testing.assert_close(theirs[V:], mine[V:], rtol=0, atol=1e-3 * spread)
    head = model.get_output_embeddings().weight
    if tied:
        assert head is model.get_input_embeddings().weight
    else:
        head = head.detach()
        assert head.shape == (V + k, 8) and torch.equal(head[:V], head_before)
        torch.testing.assert_close(
            head[V:], head_before.mean(0).expand(k, 8), rtol=0, atol=1e-3 * head_before.std().item()
        )


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
    """ "[The mean of the old rows] bounds the probability of each of k new tokens, for every
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
    """ "``float32`` survives the text": for any words (no whitespace) and any finite float32
    vectors, writing word2vec text and reading it back gives the same words, in order, and the
    same numbers bit for bit; the same file without its header line (GloVe's layout) reads the
    same."""
    import tempfile
    from pathlib import Path

    rows = data.draw(
        st.lists(
            st.lists(finite32, min_size=D, max_size=D),
            min_size=len(vocabulary),
            max_size=len(vocabulary),
        )
    )
    vectors = torch.tensor(rows, dtype=torch.float32)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "v.vec"
        write_word2vec_text(path, vocabulary, vectors)
        got_words, got = read_word_vectors(path)
        assert got_words == vocabulary
        assert torch.equal(got.view(torch.int32), vectors.view(torch.int32))  # bits, -0.0 too
        glove = Path(folder) / "v.txt"
        glove.write_text(
            "".join(path.read_text(encoding="utf-8").splitlines(True)[1:]), encoding="utf-8"
        )
        assert read_word_vectors(glove)[0] == vocabulary
        assert torch.equal(read_word_vectors(glove)[1].view(torch.int32), vectors.view(torch.int32))


def test_a_glove_line_that_looks_like_a_header_is_read_as_a_word(tmp_path):
    """The corner of "GloVe's files have no such line": a GloVe file of one-number vectors whose
    first word is a number ("2019 7") looks like a word2vec header; it is one only when its count
    is the number of lines after it."""
    glove = tmp_path / "years.txt"
    glove.write_text("2019 7\n2020 8\n", encoding="utf-8")
    words, vectors = read_word_vectors(glove)
    assert words == ["2019", "2020"] and vectors.tolist() == [[7.0], [8.0]]
    word2vec = tmp_path / "years.vec"
    word2vec.write_text("2 1\n2019 7\n2020 8\n", encoding="utf-8")
    w2v_words, w2v_vectors = read_word_vectors(word2vec)  # with a true header: dropped
    assert w2v_words == words and torch.equal(w2v_vectors, vectors)


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
    """ "A token the file has gets the file's vector; a token it lacks [...] gets a random row at
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
    """ "[WordPiece's] ``[UNK]`` count [...] depends on nothing but the characters the vocabulary
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
