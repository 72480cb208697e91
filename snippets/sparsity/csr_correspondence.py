"""EmbeddingBag on a SciPy CSR matrix equals a sparse matrix product, without densifying.

Run it from the repository root: ``python -m snippets.sparsity.csr_correspondence``. It builds a
bag-of-words count matrix ``X`` (``scipy.sparse.csr_matrix``, float32, shape ``[N, V]``) with a
hand-rolled vectoriser, then computes ``X @ W`` for a ``[V, D]`` weight four ways and asserts they
agree, in values and in gradients:

* ``nn.EmbeddingBag(mode="sum")`` fed ``indices``, ``offsets=indptr``,
  ``per_sample_weights=data`` and ``include_last_offset=True``;
* SciPy's own sparse product ``X @ W``;
* ``torch.sparse_csr_tensor(indptr, indices, data) @ W``;
* a bias-free ``nn.Linear(V, D)`` on the densified ``X`` (the only path that densifies).

It also checks that ``mode="mean"`` on the raw token stream equals the row-normalised ``X``.
Raises ``AssertionError`` if any check fails. The page "Sparsity" includes its regions by name;
``csr_correspondence.out`` is the output shown there. The figure module
``snippets/sparsity/figures.py`` imports :data:`TRAIN`, :func:`fit_vocabulary` and
:func:`vectorise` so that the figure draws this exact matrix.
"""

from __future__ import annotations

import contextlib
import warnings
from collections import Counter
from collections.abc import Iterator

import numpy as np
import scipy.sparse as sp
import torch
from torch import nn

#: The corpus the vocabulary is fitted on.
TRAIN = ["the cat sat on the mat", "the dog sat", "a cat and a dog"]
#: Texts to vectorise with that vocabulary; the last has no known word, so its row is empty.
TEXTS = [*TRAIN, "zebras graze"]


# --8<-- [start:vectorise]
def tokenise(text: str) -> list[str]:
    """Lower-case whitespace tokens of ``text``."""
    return text.lower().split()


def fit_vocabulary(texts: list[str]) -> dict[str, int]:
    """Map every distinct token of ``texts`` to a column id, in alphabetical order."""
    return {word: i for i, word in enumerate(sorted({w for t in texts for w in tokenise(t)}))}


def vectorise(texts: list[str], vocab: dict[str, int]) -> sp.csr_matrix:
    """Count the known tokens of each text: a float32 CSR matrix of shape [len(texts), len(vocab)].

    Row n holds the counts of text n; unknown tokens are dropped (a text with none gives an empty
    row). Column ids within a row are sorted and unique, SciPy's canonical CSR form.
    """
    indptr, indices, data = [0], [], []
    for text in texts:
        counts = Counter(vocab[w] for w in tokenise(text) if w in vocab)
        for col in sorted(counts):
            indices.append(col)
            data.append(counts[col])
        indptr.append(len(indices))  # row n is indices[indptr[n]:indptr[n + 1]]
    return sp.csr_matrix(
        (np.array(data, dtype=np.float32), np.array(indices), np.array(indptr)),
        shape=(len(texts), len(vocab)),
    )
# --8<-- [end:vectorise]


# --8<-- [start:guard]
@contextlib.contextmanager
def densifying_forbidden() -> Iterator[None]:
    """Make every way of densifying a SciPy sparse matrix or a torch sparse tensor raise.

    Inside the block, ``toarray``/``todense`` of SciPy's sparse matrices and ``Tensor.to_dense``
    raise ``AssertionError``; they are restored on exit.
    """

    def refuse(*args, **kwargs):
        raise AssertionError("something tried to densify X")

    targets = [(sp.csr_matrix, "toarray"), (sp.csr_matrix, "todense"),
               (torch.Tensor, "to_dense")]
    saved = [(cls, name, cls.__dict__.get(name)) for cls, name in targets]
    try:
        for cls, name in targets:
            setattr(cls, name, refuse)
        yield
    finally:
        for cls, name, original in saved:
            if original is None:
                delattr(cls, name)
            else:
                setattr(cls, name, original)
# --8<-- [end:guard]


def main() -> None:
    # --8<-- [start:matrix]
    vocab = fit_vocabulary(TRAIN)
    X = vectorise(TEXTS, vocab)  # [N=4, V=8], float32 counts
    N, V = X.shape
    print("vocabulary:", list(vocab))
    print("indptr: ", X.indptr.tolist())
    print("indices:", X.indices.tolist())
    print("data:   ", X.data.tolist())
    assert X.has_canonical_format  # sorted, no duplicate columns within a row
    assert X.indptr[0] == 0 and X.indptr[-1] == X.nnz == len(X.indices) == len(X.data)
    assert X[0, vocab["the"]] == 2  # "the cat sat on the mat": two "the"
    assert X.indptr[3] == X.indptr[4]  # "zebras graze": no known word, an empty row
    # --8<-- [end:matrix]

    # --8<-- [start:arrays]
    torch.manual_seed(0)
    D = 3
    bag = nn.EmbeddingBag(V, D, mode="sum", include_last_offset=True)  # weight: [V, D]
    W = bag.weight.detach()  # the table every path below multiplies by

    # The CSR arrays as tensors that share memory with SciPy's: no copy.
    indptr = torch.from_numpy(X.indptr)  # int32, [N + 1]: the bag offsets
    indices = torch.from_numpy(X.indices)  # int32, [nnz]: the ids in the bags
    data = torch.from_numpy(X.data)  # float32, [nnz]: one weight per id
    for tensor, array in ((indptr, X.indptr), (indices, X.indices), (data, X.data)):
        assert tensor.data_ptr() == array.ctypes.data  # a view of SciPy's own buffer
    assert indptr.dtype == indices.dtype == torch.int32  # SciPy's choice when the ids fit
    W_csr = W.clone().requires_grad_()  # its own leaf, to compare gradients later
    # --8<-- [end:arrays]

    with densifying_forbidden():  # any toarray() / todense() / to_dense() in here raises
        # --8<-- [start:bag]
        out_bag = bag(indices, offsets=indptr, per_sample_weights=data)  # [N, D]
        # --8<-- [end:bag]
        # --8<-- [start:scipy]
        out_scipy = torch.from_numpy(X @ W.numpy())  # SciPy's sparse x dense product: [N, D]
        # --8<-- [end:scipy]
        # --8<-- [start:csr]
        X_csr = torch.sparse_csr_tensor(indptr, indices, data, size=(N, V), check_invariants=True)
        out_csr = X_csr @ W_csr  # torch's sparse CSR x dense product: [N, D]
        # --8<-- [end:csr]

    # --8<-- [start:linear]
    lin = nn.Linear(V, D, bias=False)  # weight: [D, V], the table transposed
    with torch.no_grad():
        lin.weight.copy_(W.T)
    out_lin = lin(torch.from_numpy(X.toarray()))  # the one path that densifies X to [N, V]
    # --8<-- [end:linear]

    # --8<-- [start:compare]
    for name, other in [("scipy", out_scipy), ("sparse_csr", out_csr), ("linear", out_lin)]:
        torch.testing.assert_close(out_bag, other, msg=f"EmbeddingBag differs from {name}")
    assert not out_bag[3].any()  # the empty row is an empty bag: zeros
    print("X @ W, four ways:", tuple(out_bag.shape), "agree")
    # --8<-- [end:compare]

    # --8<-- [start:gradients]
    upstream = torch.randn(N, D)  # any gradient arriving from the layers above
    for out in (out_bag, out_csr, out_lin):
        out.backward(upstream)
    expected = torch.from_numpy(X.T @ upstream.numpy())  # dL/dW = X^T @ upstream, by SciPy
    torch.testing.assert_close(bag.weight.grad, expected)  # [V, D]
    torch.testing.assert_close(W_csr.grad, expected)  # [V, D]
    torch.testing.assert_close(lin.weight.grad, expected.T)  # [D, V]: mind the transpose
    print("dL/dW = X.T @ upstream, three ways:", tuple(expected.shape), "agree")
    # --8<-- [end:gradients]

    # --8<-- [start:mean]
    # Each text's raw token ids (repeats kept, unknown words dropped), one bag per text.
    ids = [[vocab[w] for w in tokenise(t) if w in vocab] for t in TEXTS]
    tokens = torch.tensor([i for row in ids for i in row])  # [total tokens]
    offsets = torch.tensor([0, *np.cumsum([len(row) for row in ids])])  # [N + 1]
    print("token offsets:", offsets.tolist())

    sums = nn.EmbeddingBag.from_pretrained(W, mode="sum", include_last_offset=True)
    means = nn.EmbeddingBag.from_pretrained(W, mode="mean", include_last_offset=True)
    # A repeated id adds its row twice: the same as a count of 2 in X.
    torch.testing.assert_close(sums(tokens, offsets), out_scipy)

    lengths = np.asarray(X.sum(axis=1)).ravel()  # tokens per text (0 for the empty one)
    inverse = np.divide(1.0, lengths, out=np.zeros_like(lengths), where=lengths > 0)
    X_mean = sp.diags(inverse) @ X  # each row divided by its sum; still sparse
    assert sp.issparse(X_mean) and np.allclose(X_mean.sum(axis=1)[:3], 1)
    torch.testing.assert_close(means(tokens, offsets), torch.from_numpy(X_mean @ W.numpy()))
    print("mean bags == row-normalised X @ W")
    # --8<-- [end:mean]

    # PyTorch flags sparse CSR tensors as beta with a warning (once per process unless asked).
    warn_always = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            torch.sparse_csr_tensor(indptr, indices, data, size=(N, V), check_invariants=True)
    finally:
        torch.set_warn_always(warn_always)
    assert any("Sparse CSR tensor support is in beta" in str(w.message) for w in caught)


if __name__ == "__main__":
    main()
