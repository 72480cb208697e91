"""Quality against ``embedding_dim`` on one small task whose answer is known: a rank-4 table.

The task: 100 "users" and 100 "items"; the target for a (user, item) pair is the dot product of a
hidden 4-number vector per user and per item, plus noise of standard deviation 0.1. A model with
two ``nn.Embedding(100, d)`` tables predicts the dot product of the two rows it looks up. It sees
2,000 pairs and is scored (mean squared error) on 2,000 others. Everything is seeded: the data by
``data_seed``, each model's initialisation by its own seed, so the numbers are the same on every
run of the same machine and release. On 2 CPU cores the whole sweep takes a few seconds.
"""

from __future__ import annotations

import statistics

import torch
from torch import nn

#: The widths tried, the seeds per width, and the task's hidden rank.
WIDTHS = (1, 2, 3, 4, 8, 21, 64)  # 3 and 21: the two rules of thumb for 100 categories
SEEDS = (0, 1, 2, 3, 4)
TRUE_RANK = 4
N_USERS = N_ITEMS = 100


# --8<-- [start:task]
def make_task(data_seed: int = 0) -> dict[str, torch.Tensor]:
    """Train and test pairs of a rank-``TRUE_RANK`` task: int64 ids ``[N]`` and float32 targets.

    Returns ``{"train_u", "train_i", "train_y", "test_u", "test_i", "test_y"}``, 2,000 pairs each,
    drawn without repeats from the 100 × 100 grid, targets ``<P[u], Q[i]> + N(0, 0.1²)``.
    """
    g = torch.Generator().manual_seed(data_seed)
    P = torch.randn(N_USERS, TRUE_RANK, generator=g) / TRUE_RANK**0.25  # targets of std about 1
    Q = torch.randn(N_ITEMS, TRUE_RANK, generator=g) / TRUE_RANK**0.25
    pairs = torch.randperm(N_USERS * N_ITEMS, generator=g)[:4000]  # 4,000 distinct cells
    u, i = pairs // N_ITEMS, pairs % N_ITEMS
    y = (P[u] * Q[i]).sum(dim=1) + 0.1 * torch.randn(len(pairs), generator=g)
    return {"train_u": u[:2000], "train_i": i[:2000], "train_y": y[:2000],
            "test_u": u[2000:], "test_i": i[2000:], "test_y": y[2000:]}


class DotModel(nn.Module):
    """Two tables, ``[100, d]`` each; the prediction for a pair is the dot product of its rows."""

    def __init__(self, d: int) -> None:
        super().__init__()
        self.users = nn.Embedding(N_USERS, d)
        self.items = nn.Embedding(N_ITEMS, d)
        for table in (self.users, self.items):  # start small: rows of length about 0.3
            nn.init.normal_(table.weight, std=0.3 / d**0.5)

    def forward(self, u: torch.Tensor, i: torch.Tensor) -> torch.Tensor:
        return (self.users(u) * self.items(i)).sum(dim=-1)  # [N] float32


def test_mse(d: int, seed: int, task: dict[str, torch.Tensor], steps: int = 250) -> float:
    """Test mean squared error of a width-``d`` model after ``steps`` full-batch Adam steps."""
    torch.manual_seed(seed)
    model = DotModel(d)
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    for _ in range(steps):
        opt.zero_grad()
        loss = (model(task["train_u"], task["train_i"]) - task["train_y"]).pow(2).mean()
        loss.backward()
        opt.step()
    with torch.no_grad():
        return (model(task["test_u"], task["test_i"]) - task["test_y"]).pow(2).mean().item()
# --8<-- [end:task]


# --8<-- [start:sweep]
def sweep() -> dict[int, list[float]]:
    """Width -> test MSE for each seed of :data:`SEEDS` (one thread: the same sums every run)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        task = make_task()
        return {d: [test_mse(d, s, task) for s in SEEDS] for d in WIDTHS}
    finally:
        torch.set_num_threads(threads)
# --8<-- [end:sweep]


def main() -> None:
    # --8<-- [start:main]
    results = sweep()
    print(f"{'embedding_dim':>13}  {'median test MSE':>15}  {'min':>6}  {'max':>6}")
    medians = {}
    for d, mses in results.items():
        medians[d] = statistics.median(mses)
        print(f"{d:>13}  {medians[d]:>15.3f}  {min(mses):>6.3f}  {max(mses):>6.3f}")
    best = min(medians, key=medians.get)
    print(f"best median at embedding_dim = {best}; noise floor 0.010")
    assert best in (TRUE_RANK, 8)  # the best width sits at the hidden rank or just above it
    assert min(results[2]) > max(results[8])  # too narrow: worse on every seed
    assert min(results[64]) > max(results[8])  # far too wide: worse on every seed (no regulariser)
    # --8<-- [end:main]


if __name__ == "__main__":
    main()
