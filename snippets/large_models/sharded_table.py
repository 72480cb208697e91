"""Tables too big for one device: the hashing trick, at small scale on a CPU.

*Hashing trick*: ids from an open-ended space (user ids, product ids) are mapped into a fixed
number of rows with a hash, ``row = h(id) mod M``; distinct ids may then share a row (a
collision). The script measures the share of ids that share their row and compares it with the
birthday-problem formula. Published in 2009 by Weinberger et al., "Feature Hashing for Large
Scale Multitask Learning" (ICML 2009, https://arxiv.org/abs/0902.2206), and by Shi et al.,
"Hash Kernels for Structured Data" (JMLR 10, 2009, https://jmlr.org/papers/v10/shi09a.html).

Sharding a table across processes has its own page, "One table across processes"
(``docs/sharded-tables.md``), which runs it on real gloo processes.

Run it: ``python snippets/large_models/sharded_table.py`` (under a second).
``sharded_table.out`` is what it prints.
"""

import torch

P = 2**31 - 1  # a Mersenne prime: the modulus of the hash


# --8<-- [start:hashing]
def hashed_rows(ids: torch.Tensor, num_rows: int, seed: int = 0) -> torch.Tensor:
    """Row of each id: ``((a * id + b) mod P) mod num_rows`` with ``P = 2**31 - 1``.

    ``ids``: any shape, int64, values in ``[0, P)``; returns the same shape, int64, values in
    ``[0, num_rows)``. ``a`` and ``b`` are drawn from ``seed`` (a universal hash family: Carter
    and Wegman, 1979). Every product stays below ``2**62``, so int64 never overflows.
    Raises ``ValueError`` for an id outside ``[0, P)``.
    """
    if ids.numel() and (ids.min() < 0 or ids.max() >= P):
        raise ValueError(f"ids must lie in [0, {P})")
    g = torch.Generator().manual_seed(seed)
    a, b = (int(x) for x in torch.randint(1, P, (2,), generator=g))
    return (ids * a + b) % P % num_rows
# --8<-- [end:hashing]


def main() -> None:
    # --8<-- [start:collisions]
    torch.manual_seed(0)
    n_ids, M = 20_000, 100_000  # distinct ids seen, rows in the hashed table
    ids = torch.randint(0, P, (n_ids,)).unique()  # distinct ids from a 2-billion space
    rows = hashed_rows(ids, M)
    assert rows.min() >= 0 and rows.max() < M
    _, inverse, counts = rows.unique(return_inverse=True, return_counts=True)
    shared = (counts[inverse] > 1).float().mean().item()  # ids whose row holds another id
    expected = 1 - (1 - 1 / M) ** (len(ids) - 1)  # chance that any other id lands on my row
    assert abs(shared - expected) < 0.01
    print(f"{len(ids)} ids hashed into {M} rows: {shared:.1%} share a row"
          f" (birthday formula: {expected:.1%})")
    # --8<-- [end:collisions]


if __name__ == "__main__":
    main()
