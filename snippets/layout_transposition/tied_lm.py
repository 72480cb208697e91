"""GPT-style weight tying in a tiny language model: one ``[V, D]`` Parameter, two uses.

The input embedding ``wte = nn.Embedding(V, D)`` and the output projection
``lm_head = nn.Linear(D, V, bias=False)`` both store ``[V, D]``: row ``v`` belongs to token ``v``.
So ``lm_head.weight = wte.weight`` ties them with no transpose. The script checks that the tied
model holds one Parameter (``parameters()`` yields it once, ``state_dict()`` names it twice), that
its gradient is the sum of the input-side and output-side gradients, that tying survives
``.double()``, and what happens when an untied checkpoint is loaded into the tied model.

Run it: ``python snippets/layout_transposition/tied_lm.py``; it raises ``AssertionError`` if
PyTorch behaves differently. ``tied_lm.out`` is what it prints. The tying line follows nanoGPT
(https://github.com/karpathy/nanoGPT/blob/master/model.py); weight tying itself was proposed
independently, months apart in 2016, by Press & Wolf, "Using the Output Embedding to Improve
Language Models" (https://arxiv.org/abs/1608.05859, EACL 2017), and by Inan, Khosravi & Socher,
"Tying Word Vectors and Word Classifiers: A Loss Framework for Language Modeling"
(https://arxiv.org/abs/1611.01462, ICLR 2017).
"""

import torch
import torch.nn.functional as F
from torch import nn

V, D = 11, 4  # vocabulary size, model width


# --8<-- [start:model]
class TinyLM(nn.Module):
    """Token ids ``(B, T)`` int64 -> next-token logits ``(B, T, V)`` float32.

    ``mix`` and ``ln_f`` stand in for the transformer blocks. With ``tie=True`` the output
    projection reuses the input table: ``lm_head.weight is wte.weight``.
    """

    def __init__(self, vocab_size: int, dim: int, tie: bool = True) -> None:
        super().__init__()
        self.wte = nn.Embedding(vocab_size, dim)  # weight [V, D]
        self.mix = nn.Linear(dim, dim)
        self.ln_f = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab_size, bias=False)  # weight [V, D] too
        if tie:
            self.lm_head.weight = self.wte.weight  # same layout: no transpose

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        h = self.ln_f(torch.tanh(self.mix(self.wte(idx))))  # (B, T, D)
        return self.lm_head(h)  # (B, T, V): logit v is h . wte.weight[v]
# --8<-- [end:model]


def main() -> None:
    # --8<-- [start:count]
    torch.manual_seed(0)
    model = TinyLM(V, D)
    assert model.lm_head.weight is model.wte.weight
    assert model.lm_head.weight.shape == model.wte.weight.shape == (V, D)

    names = [n for n, _ in model.named_parameters()]
    assert names == ["wte.weight", "mix.weight", "mix.bias", "ln_f.weight", "ln_f.bias"]
    assert "lm_head.weight" in dict(model.named_parameters(remove_duplicate=False))
    n_params = sum(p.numel() for p in model.parameters())
    assert n_params == V * D + (D * D + D) + 2 * D  # the table counted once
    print("parameters:", n_params, "| untied would be", n_params + V * D)
    # --8<-- [end:count]

    # --8<-- [start:state_dict]
    sd = model.state_dict()
    assert list(sd) == ["wte.weight", "mix.weight", "mix.bias", "ln_f.weight", "ln_f.bias",
                        "lm_head.weight"]  # two names for the table...
    assert sd["wte.weight"].data_ptr() == sd["lm_head.weight"].data_ptr()  # ...one storage
    assert model.double().lm_head.weight is model.wte.weight  # conversion keeps the tie
    model.float()
    # --8<-- [end:state_dict]

    # --8<-- [start:grads]
    untied = TinyLM(V, D, tie=False)
    untied.load_state_dict(model.state_dict())  # same numbers, two separate tables

    idx = torch.tensor([[3, 1, 4, 1, 5]])  # (B=1, T=5); ids 0, 2, 6..10 are never inputs
    targets = torch.tensor([[1, 4, 1, 5, 9]])
    for m in (model, untied):
        logits = m(idx)
        F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1)).backward()

    g_in, g_out = untied.wte.weight.grad, untied.lm_head.weight.grad
    torch.testing.assert_close(model.wte.weight.grad, g_in + g_out)  # the two uses, summed
    rows = lambda g: g.abs().sum(dim=1).nonzero().flatten().tolist()  # noqa: E731
    assert rows(g_in) == [1, 3, 4, 5]  # input side: only the looked-up rows (a gather)
    assert rows(g_out) == list(range(V))  # output side: every row (the softmax touches all)
    print("input-side grad rows:", rows(g_in),
          "| output-side grad rows:", len(rows(g_out)), "of", V)
    # --8<-- [end:grads]

    # "Every row" holds while no probability underflows: in float32 a logit about 104 below the
    # largest gives a probability of exactly 0, and then its row gets no output-side gradient.
    far = nn.Parameter(torch.tensor([[1.0, 0.0], [-200.0, 0.0], [0.0, 1.0]]))
    h = torch.tensor([[1.0, 0.0]])  # logits h . far[v]: 1, -200, 0
    F.cross_entropy(h @ far.T, torch.tensor([0])).backward()
    assert (h @ far.T).softmax(dim=-1)[0, 1] == 0  # underflowed
    assert not far.grad[1].any() and far.grad[[0, 2]].any(dim=1).all()

    # --8<-- [start:checkpoint]
    torch.manual_seed(1)
    other = TinyLM(V, D, tie=False)  # an untied checkpoint: two different tables
    assert not torch.equal(other.wte.weight, other.lm_head.weight)
    result = model.load_state_dict(other.state_dict())  # strict, and no error
    assert not result.missing_keys and not result.unexpected_keys
    assert torch.equal(model.wte.weight, other.lm_head.weight)  # the key loaded last wins
    assert not torch.equal(model.wte.weight, other.wte.weight)  # the input table was overwritten
    print("untied checkpoint into tied model: loads silently;",
          "wte.weight == checkpoint lm_head.weight")
    # --8<-- [end:checkpoint]


if __name__ == "__main__":
    main()
