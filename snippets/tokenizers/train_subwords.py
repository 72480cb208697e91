"""Train word-level, BPE, WordPiece and byte-level BPE tokenizers on the site's 4.7 KB diary.

Everything is trained here, in well under a second, with Hugging Face's ``tokenizers`` library
(https://huggingface.co/docs/tokenizers): nothing is downloaded. The training text is
``snippets/data/river_town.txt``; ``snippets/data/millbrook_letter.txt`` is held out, to count
the ``[UNK]`` tokens each tokenizer produces on words it never saw. Both were written for this
project (see ``snippets/data/README.md``).

The trainers are deterministic for a given text and ``vocab_size``, so the printed numbers are
too.
"""

from __future__ import annotations

from pathlib import Path

from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

DATA = Path(__file__).resolve().parent.parent / "data"
DIARY = DATA / "river_town.txt"
LETTER = DATA / "millbrook_letter.txt"

#: Special tokens, first in every vocabulary so that their ids are 0, 1, 2, 3.
SPECIALS = ["[PAD]", "[UNK]", "[BOS]", "[EOS]"]

#: The width of the embedding table used to count parameters (rows x columns).
EMBEDDING_DIM = 64


def read_lines(path: Path = DIARY) -> list[str]:
    """The non-empty lines of ``path`` that do not start with ``#`` (a list of ``str``).

    Raises ``OSError`` if the file cannot be read.
    """
    lines = path.read_text(encoding="utf-8").splitlines()
    return [ln for ln in lines if ln.strip() and not ln.startswith("#")]


def _words_first(model: models.Model) -> Tokenizer:
    """A tokenizer around ``model`` that lower-cases and splits on whitespace and punctuation."""
    tok = Tokenizer(model)
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()  # words and punctuation marks
    return tok


def train_word_level(lines: list[str]) -> Tokenizer:
    """One id per distinct lower-cased word or punctuation mark of ``lines``, after ``SPECIALS``.

    A word not in the vocabulary becomes ``[UNK]`` (id 1).
    """
    tok = _words_first(models.WordLevel(unk_token="[UNK]"))
    trainer = trainers.WordLevelTrainer(special_tokens=SPECIALS, show_progress=False)
    tok.train_from_iterator(lines, trainer)
    return tok


def train_bpe(vocab_size: int, lines: list[str]) -> Tokenizer:
    """Byte-pair encoding (Sennrich et al., 2016, https://arxiv.org/abs/1508.07909) on characters.

    The vocabulary starts with ``SPECIALS`` and every character of ``lines`` (lower-cased), then
    adds the most frequent adjacent pair, merged, until it holds ``vocab_size`` tokens or no pair
    is left. A character never seen in training becomes ``[UNK]`` (id 1).
    """
    tok = _words_first(models.BPE(unk_token="[UNK]"))
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=SPECIALS, show_progress=False
    )
    tok.train_from_iterator(lines, trainer)
    return tok


def train_wordpiece(vocab_size: int, lines: list[str]) -> Tokenizer:
    """WordPiece as in BERT: pieces after a word's first one carry a ``##`` prefix.

    Trained with ``tokenizers``' ``WordPieceTrainer`` (which learns the vocabulary with BPE's
    merges) up to ``vocab_size`` tokens. At encoding time a word that cannot be covered by pieces
    of the vocabulary becomes a single ``[UNK]`` (id 1), the whole word. Not deterministic: on
    ties between merges the vocabulary can differ from run to run (tokenizers issue #1794), the
    alphabet (single characters, with and without ``##``) does not.
    """
    tok = _words_first(models.WordPiece(unk_token="[UNK]"))
    tok.decoder = decoders.WordPiece()
    trainer = trainers.WordPieceTrainer(
        vocab_size=vocab_size, special_tokens=SPECIALS, show_progress=False
    )
    tok.train_from_iterator(lines, trainer)
    return tok


def train_byte_level_bpe(vocab_size: int, lines: list[str]) -> Tokenizer:
    """GPT-2-style byte-level BPE: the text is UTF-8 bytes, and all 256 bytes are in the vocabulary.

    No normalizer (case is kept) and no unknown token: any string has a byte sequence, and every
    byte has an id, so encoding never fails and decoding gives the string back. The vocabulary is
    ``[PAD]``, the 256 byte symbols, then merges up to ``vocab_size``.
    """
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=["[PAD]"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(lines, trainer)
    return tok


def count_tokens(tok: Tokenizer, lines: list[str]) -> int:
    """How many tokens ``tok`` turns ``lines`` into (no special tokens added)."""
    return sum(len(e.ids) for e in tok.encode_batch(lines, add_special_tokens=False))


def count_unk(tok: Tokenizer, lines: list[str]) -> int:
    """How many ``[UNK]`` tokens ``tok`` produces on ``lines`` (0 if it has no ``[UNK]``)."""
    unk = tok.token_to_id("[UNK]")
    return sum(e.ids.count(unk) for e in tok.encode_batch(lines, add_special_tokens=False))


#: The vocabulary sizes of the sweep (the figure and the printed table use the same ones).
SWEEP = (40, 60, 100, 150, 200, 300, 400)


def tradeoff(lines: list[str], sizes=SWEEP) -> dict[str, list[tuple[int, int]]]:
    """For each subword kind, ``(vocabulary size reached, tokens for lines)`` at each size asked.

    Keys: ``"BPE"``, ``"byte-level BPE"`` (whose sizes start at 257, its alphabet, so it gets
    ``257 + s`` for each ``s``), and ``"words"``, a single point for the word-level vocabulary.
    A trainer stops early when no pair is left to merge, so the size reached can be smaller than
    the size asked. WordPiece is left out: its trainer is not deterministic (tokenizers issue
    #1794, https://github.com/huggingface/tokenizers/issues/1794), so its counts vary by a few
    tokens from run to run.
    """
    out: dict[str, list[tuple[int, int]]] = {"BPE": [], "byte-level BPE": []}
    for s in sizes:
        for name, train, asked in (
            ("BPE", train_bpe, s),
            ("byte-level BPE", train_byte_level_bpe, 257 + s),
        ):
            tok = train(asked, lines)
            out[name].append((tok.get_vocab_size(), count_tokens(tok, lines)))
    words = train_word_level(lines)
    out["words"] = [(words.get_vocab_size(), count_tokens(words, lines))]
    return out


def main() -> None:
    # --8<-- [start:train]
    lines = read_lines(DIARY)  # the diary without its comment lines: 4,337 characters
    bpe = train_bpe(vocab_size=200, lines=lines)
    vocab = bpe.get_vocab()  # token -> id
    assert [vocab[s] for s in SPECIALS] == [0, 1, 2, 3]  # special tokens come first
    chars = {c for line in lines for c in line.lower() if not c.isspace()}
    assert chars <= vocab.keys()  # then every character of the text...
    assert bpe.get_vocab_size() == 200  # ...then merges, until the size asked for

    enc = bpe.encode("The ferryman rowed the heron across.")
    print(enc.tokens)
    print(enc.ids)
    assert "[UNK]" not in enc.tokens  # an unseen word, spelled with seen pieces
    # --8<-- [end:train]

    # --8<-- [start:tradeoff]
    diary_chars = sum(len(ln) for ln in lines)
    print(f"the diary: {diary_chars} characters")
    print(f"{'tokenizer':<15}{'vocab':>6}{'tokens':>8}{'chars/token':>12}{'table (x64)':>12}")
    results = tradeoff(lines)
    for name, points in results.items():
        for v, n in points:
            print(f"{name:<15}{v:>6}{n:>8}{diary_chars / n:>12.2f}{v * EMBEDDING_DIM:>12,}")
        lengths = [n for _, n in points]
        assert lengths == sorted(lengths, reverse=True)  # a bigger vocabulary, a shorter text
    words_vocab, words_tokens = results["words"][0]
    bpe_vocab, bpe_tokens = results["BPE"][-1]
    assert bpe_vocab > words_vocab and bpe_tokens == words_tokens  # BPE ran out of merges
    # --8<-- [end:tradeoff]


if __name__ == "__main__":
    main()
