"""Pretrained word vectors in word2vec's text format: written, read, aligned to a tokenizer, loaded.

The vectors are the site's own: the 16-dimensional skip-gram table that
``snippets/static_vs_contextual/skipgram.py`` trains on the diary in about a second. They are
written the way word2vec's ``-binary 0`` output and GloVe's files are laid out (one word and its
numbers per line, separated by spaces; word2vec adds a first line ``<count> <dim>``), read back,
and matched to the vocabulary of a BPE tokenizer trained on the same diary: a token with a vector
gets it, a token without one gets a random row of the same scale, the padding token a zero row.
The table then goes into ``nn.Embedding.from_pretrained``, frozen, and is unfrozen later.

Formats: word2vec's text output (what ``TrainModel`` writes with ``-binary 0`` in
``word2vec.c``, https://github.com/tmikolov/word2vec); GloVe's files, https://nlp.stanford.edu/projects/glove/.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from snippets.static_vs_contextual import skipgram
from snippets.tokenizers.train_subwords import read_lines, train_bpe


def write_word2vec_text(path: Path, words: list[str], vectors: torch.Tensor) -> None:
    """Write ``vectors`` (float ``[V, D]``, row ``i`` for ``words[i]``) in word2vec text format.

    First line ``V D``, then one line per word: the word and its ``D`` numbers, space-separated,
    each written with ``repr``-exact precision (``float.__repr__`` of the float32 value), so that
    reading the file back gives the same float32 numbers. Raises ``ValueError`` if a word is
    empty or contains whitespace, or if ``len(words) != V``.
    """
    if len(words) != vectors.shape[0]:
        raise ValueError(f"{len(words)} words for {vectors.shape[0]} vectors")
    lines = [f"{vectors.shape[0]} {vectors.shape[1]}"]
    for word, row in zip(words, vectors.tolist(), strict=True):
        if not word or word != "".join(word.split()):
            raise ValueError(f"a word must be non-empty and without whitespace: {word!r}")
        lines.append(word + " " + " ".join(repr(x) for x in row))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


# --8<-- [start:read]
def read_word_vectors(path: Path) -> tuple[list[str], torch.Tensor]:
    """Read a word2vec text file (``V D`` header) or a GloVe file (no header).

    Returns ``(words, vectors)``: ``V`` words in file order and a float32 tensor ``[V, D]``.
    Raises ``ValueError`` for an empty file, a line with the wrong number of values or a
    repeated word.
    """
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines:
        raise ValueError("the file holds no vectors")
    first = lines[0].split()
    if (len(first) == 2 and all(f.isascii() and f.isdigit() for f in first)
            and int(first[0]) == len(lines) - 1):  # word2vec's header: count (of what follows), dim
        lines = lines[1:]
    words, rows = [], []
    for number, line in enumerate(lines, 1):
        word, *values = line.rstrip().split(" ")
        if rows and len(values) != len(rows[0]):
            raise ValueError(f"line {number}: {len(values)} values, expected {len(rows[0])}")
        words.append(word)
        rows.append([float(v) for v in values])
    if len(set(words)) != len(words):
        raise ValueError("a word appears twice")
    return words, torch.tensor(rows, dtype=torch.float32)
# --8<-- [end:read]


# --8<-- [start:align]
def align_to_vocab(
    vocab: dict[str, int], words: list[str], vectors: torch.Tensor, pad_id: int | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """A ``[len(vocab), D]`` float32 table whose row ``vocab[t]`` is ``t``'s vector if it has one.

    ``vocab``: token -> id, ids ``0 .. len(vocab) - 1`` (a tokenizer's ``get_vocab()``).
    ``words``, ``vectors``: what :func:`read_word_vectors` returns. A token without a vector
    gets a row drawn from N(0, s^2), ``s`` the standard deviation of all the loaded numbers (same
    scale; 1 if there is only one number; draws from torch's global generator, so seed it).
    Row ``pad_id``, if given, is zeros.
    Returns ``(table, found)``: ``found`` is a bool ``[len(vocab)]``, true where a vector was used.
    """
    index = {w: i for i, w in enumerate(words)}
    scale = vectors.std() if vectors.numel() > 1 else torch.tensor(1.0)
    table = torch.randn(len(vocab), vectors.shape[1]) * scale
    found = torch.zeros(len(vocab), dtype=torch.bool)
    for token, i in vocab.items():
        if token in index:
            table[i] = vectors[index[token]]
            found[i] = True
    if pad_id is not None:
        table[pad_id] = 0.0
    return table, found
# --8<-- [end:align]


def skipgram_vectors() -> tuple[list[str], torch.Tensor]:
    """The site's skip-gram vectors: 143 words and a float32 ``[143, 16]`` table.

    Trains ``skipgram.py``'s model (one CPU thread, as its own ``main`` does, so the numbers do
    not depend on the core count) with its printing silenced. The last digits still depend on
    the CPU (its vector instructions round differently), so nothing printed shows them.
    """
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            return skipgram.train_and_report()
    finally:
        torch.set_num_threads(threads)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        # --8<-- [start:file]
        itos, trained = skipgram_vectors()  # 143 words, [143, 16]
        path = Path(folder) / "river_town.vec"
        write_word2vec_text(path, itos, trained)
        text = path.read_text(encoding="utf-8").splitlines()
        print(text[0])  # the header: 143 words, 16 numbers each
        word, *numbers = text[1].split()
        print(word, *(f"{float(x):.3f}" for x in numbers[:4]), "...")  # rounded for the page
        words, vectors = read_word_vectors(path)
        assert words == itos and torch.equal(vectors, trained)  # float32 survives the text
        # --8<-- [end:file]

    # --8<-- [start:load]
    tok = train_bpe(300, read_lines())  # the tokenizer the model will read its ids from
    vocab = tok.get_vocab()
    pad = vocab["[PAD]"]
    torch.manual_seed(0)
    table, found = align_to_vocab(vocab, words, vectors, pad_id=pad)
    print(f"{found.sum()} of {len(vocab)} tokens have a pretrained vector;",
          f"{len(set(words) - vocab.keys())} of {len(words)} words have no token of their own")
    assert torch.equal(table[vocab["bank"]], vectors[words.index("bank")])
    assert not found[pad] and not table[pad].any()

    # A clone: from_pretrained does not copy, and fine-tuning would overwrite `table` in place.
    emb = nn.Embedding.from_pretrained(table.clone(), freeze=True, padding_idx=pad)
    ids = torch.tensor(tok.encode("the heron stood on the bank").ids)
    assert torch.equal(emb(ids)[-1], vectors[words.index("bank")])
    # --8<-- [end:load]

    # --8<-- [start:finetune]
    torch.manual_seed(0)
    head = nn.Linear(16, len(vocab))
    opt = torch.optim.Adam([*emb.parameters(), *head.parameters()], lr=0.01)  # table included

    def step(batch: torch.Tensor) -> None:
        loss = F.cross_entropy(head(emb(batch[:, :-1])).flatten(0, 1), batch[:, 1:].flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()

    batch = torch.tensor([e.ids for e in tok.encode_batch(read_lines()[:8])][:1])  # [1, L]
    step(batch)  # phase 1: frozen, only the head trains
    assert emb.weight.grad is None and torch.equal(emb.weight, table)

    emb.weight.requires_grad_(True)  # phase 2: unfreeze and fine-tune
    step(batch)
    moved = (emb.weight != table).any(1)
    assert torch.equal(moved, torch.isin(torch.arange(len(vocab)), batch[:, :-1]))  # rows looked up
    print(f"after unfreezing, one step moved {moved.sum()} rows: the ids in the batch")
    after_one = emb.weight.detach().clone()
    other = torch.arange(len(vocab))[~moved][-6:][None]  # a batch of ids not looked up before
    step(other)  # Adam's running averages still move the first batch's rows
    assert (emb.weight[moved] != after_one[moved]).any(1).all()
    # --8<-- [end:finetune]

    # --8<-- [start:pitfall]
    frozen = nn.Embedding.from_pretrained(table.clone())
    trainable = [p for p in [*frozen.parameters(), *head.parameters()] if p.requires_grad]
    opt = torch.optim.Adam(trainable, lr=0.01)  # built while the table was frozen
    frozen.weight.requires_grad_(True)  # unfrozen later...
    loss = head(frozen(batch)).logsumexp(-1).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    assert frozen.weight.grad is not None  # ...it gets gradients,
    assert torch.equal(frozen.weight, table)  # but this optimizer never updates it
    # --8<-- [end:pitfall]


if __name__ == "__main__":
    main()
