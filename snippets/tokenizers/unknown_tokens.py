"""Why subword tokenizers rarely emit ``[UNK]``: count it on a letter the tokenizers never saw.

The tokenizers of ``train_subwords.py`` are trained on the diary (``river_town.txt``) and then
encode ``millbrook_letter.txt``, written for this project with many words the diary never uses.
A word-level vocabulary loses every new word; character-level BPE loses only the characters it
never saw; WordPiece loses whole words, including some spelled with seen letters; byte-level BPE
loses nothing.
"""

from __future__ import annotations

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from snippets.tokenizers.train_subwords import (
    DIARY,
    LETTER,
    count_tokens,
    count_unk,
    read_lines,
    train_bpe,
    train_byte_level_bpe,
    train_word_level,
    train_wordpiece,
)


def main() -> None:
    lines = read_lines(DIARY)
    # --8<-- [start:unk]
    letter = read_lines(LETTER)  # held out: never seen in training
    words = train_word_level(lines)
    letter_tokens = count_tokens(words, letter)
    print(f"the letter: {letter_tokens} words and punctuation marks")
    unks = {}
    for name, tok in (
        ("words", words),
        ("BPE 200", train_bpe(200, lines)),
        ("WordPiece 200", train_wordpiece(200, lines)),
        ("byte-level 457", train_byte_level_bpe(457, lines)),
    ):
        unks[name] = count_unk(tok, letter)
        print(f"{name:<15}[UNK] x {unks[name]:>3}")
    seen = {c for line in lines for c in line.lower()}
    unseen = [c for line in letter for c in line.lower() if c not in seen]
    print("characters the diary never uses:", "".join(unseen))
    assert unks["words"] > letter_tokens // 2  # most words of the letter are new words
    for word in ("kingfisher", "turquoise", "mortgages"):  # one row for all of them: [UNK]'s
        assert word in " ".join(letter) and words.encode(word).tokens == ["[UNK]"]
    assert unks["BPE 200"] == len(unseen)  # BPE: one [UNK] per unseen character, no more
    assert unks["byte-level 457"] == 0  # no [UNK] at all: it has no such token
    # --8<-- [end:unk]

    # --8<-- [start:wordpiece]
    wordpiece = train_wordpiece(200, lines)
    vocab = wordpiece.get_vocab()
    assert "b" in vocab and "##b" not in vocab  # "b" only ever starts a word in the diary
    print(wordpiece.encode("a bank, a tuba").tokens)  # "tuba": every letter seen, still [UNK]
    # --8<-- [end:wordpiece]

    # --8<-- [start:bytes]
    byte_bpe = train_byte_level_bpe(457, lines)
    text = "Zürich's otters 🦦"  # letters, an apostrophe and an emoji the diary never uses
    enc = byte_bpe.encode(text)
    print(enc.tokens)
    assert byte_bpe.decode(enc.ids) == text  # decoded exactly, with no [UNK] on the way
    assert enc.tokens[1:3] == ["Ã", "¼"]  # "ü": two UTF-8 bytes, two tokens
    assert enc.tokens[-4:] == ["ð", "Ł", "¦", "¦"]  # the otter: 4 UTF-8 bytes, 4 tokens
    print(train_bpe(200, lines).encode(text).tokens)  # character-level BPE: [UNK]s
    # --8<-- [end:bytes]

    # --8<-- [start:byte_fallback]
    # BPE(byte_fallback=True) falls back to byte tokens only if its vocabulary holds them...
    trained = Tokenizer(models.BPE(unk_token="[UNK]", byte_fallback=True))
    trained.pre_tokenizer = pre_tokenizers.Whitespace()
    trained.train_from_iterator(lines, trainers.BpeTrainer(
        vocab_size=200, special_tokens=["[UNK]"], show_progress=False))
    assert trained.token_to_id("<0xC3>") is None  # ...and BpeTrainer adds none
    print(trained.encode("otter ü").tokens)
    assert trained.encode("otter ü").tokens[-1] == "[UNK]"

    byte_tokens = {f"<0x{b:02X}>": 1 + b for b in range(256)}  # <0x00> ... <0xFF>
    with_bytes = Tokenizer(models.BPE(vocab={"[UNK]": 0, **byte_tokens, "z": 257}, merges=[],
                                      unk_token="[UNK]", byte_fallback=True))
    with_bytes.decoder = decoders.ByteFallback()
    print(with_bytes.encode("zü").tokens)
    assert with_bytes.encode("zü").tokens == ["z", "<0xC3>", "<0xBC>"]  # "ü": two UTF-8 bytes
    assert with_bytes.decode(with_bytes.encode("zü").ids) == "zü"
    # --8<-- [end:byte_fallback]


if __name__ == "__main__":
    main()
