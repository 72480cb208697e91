"""The embedding tables of four real models from Hugging Face ``transformers``, read from the code.

Each model class is built from its configuration class with the published sizes, on the ``meta``
device: every parameter has a shape and a dtype but no storage, so a 7-billion-parameter model
costs no memory and nothing is downloaded (run with ``HF_HUB_OFFLINE=1``; no weights are ever
read). The script asserts, for each model, the token table's shape, whether the output layer
reuses it (``is``), the share of all parameters held by embedding tables, and the table's memory
in float32, bfloat16 and 8-bit. It then shows how each model encodes positions (a learned table,
a rotation of queries and keys, a bias on attention scores), how the models initialise their
tables (built small, on the CPU, with the models' own initialisation code), and how T5 rescales
before its tied output layer.

Run it: ``HF_HUB_OFFLINE=1 python snippets/large_models/real_models.py`` (a few seconds, most of
them importing ``transformers``). ``real_models.out`` is what it prints.

Sources of the sizes (each model's ``config.json`` on the Hugging Face Hub):
GPT-2 small https://huggingface.co/openai-community/gpt2/blob/main/config.json,
BERT-base https://huggingface.co/google-bert/bert-base-uncased/blob/main/config.json,
Llama 2 7B https://huggingface.co/meta-llama/Llama-2-7b-hf/blob/main/config.json,
T5-base https://huggingface.co/google-t5/t5-base/blob/main/config.json.
"""

import math
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for the model hub

import torch  # noqa: E402
from torch import nn  # noqa: E402
from transformers import (  # noqa: E402
    BertConfig,
    BertForMaskedLM,
    GemmaConfig,
    GemmaForCausalLM,
    GPT2Config,
    GPT2LMHeadModel,
    LlamaConfig,
    LlamaForCausalLM,
    T5Config,
    T5ForConditionalGeneration,
)
from transformers.models.bloom.modeling_bloom import build_alibi_tensor  # noqa: E402
from transformers.models.llama.modeling_llama import (  # noqa: E402
    LlamaRotaryEmbedding,
    apply_rotary_pos_emb,
)

MIB = 2**20


# --8<-- [start:configs]
def published_configs() -> dict[str, tuple[type[nn.Module], object]]:
    """Model name -> (model class, configuration) with the sizes of the published checkpoints.

    Sizes copied from each model's ``config.json`` on the Hugging Face Hub (see the module
    docstring); every other setting is the configuration class's default.
    """
    return {
        "GPT-2 small": (GPT2LMHeadModel, GPT2Config(
            vocab_size=50257, n_positions=1024, n_embd=768, n_layer=12, n_head=12)),
        "BERT-base": (BertForMaskedLM, BertConfig(
            vocab_size=30522, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
            intermediate_size=3072, max_position_embeddings=512, type_vocab_size=2)),
        "Llama 2 7B": (LlamaForCausalLM, LlamaConfig(
            vocab_size=32000, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
            num_attention_heads=32, num_key_value_heads=32, max_position_embeddings=4096,
            tie_word_embeddings=False)),
        "T5-base": (T5ForConditionalGeneration, T5Config(
            vocab_size=32128, d_model=768, d_kv=64, d_ff=3072, num_layers=12, num_heads=12)),
    }


def build_on_meta(cls: type[nn.Module], config: object) -> nn.Module:
    """The model ``cls(config)`` with every parameter on the meta device (shapes, no storage)."""
    with torch.device("meta"):
        return cls(config)
# --8<-- [end:configs]


def embedding_parameters(model: nn.Module) -> list[nn.Parameter]:
    """The distinct weights of every ``nn.Embedding`` in ``model`` (a tied table counted once)."""
    seen: dict[int, nn.Parameter] = {}
    for module in model.modules():
        if isinstance(module, nn.Embedding):
            seen.setdefault(id(module.weight), module.weight)
    return list(seen.values())


def table_mib(rows: int, cols: int, dtype: str) -> float:
    """Memory of a ``[rows, cols]`` table in MiB: 4 or 2 bytes per entry for ``"float32"`` or
    ``"bfloat16"``; for ``"8-bit"`` one byte per entry plus a float32 scale and offset per row
    (8 bytes), the row-wise layout of ``torch.ops.quantized.embedding_bag_byte_prepack``."""
    per_entry = {"float32": 4, "bfloat16": 2, "8-bit": 1}[dtype]
    extra = 8 * rows if dtype == "8-bit" else 0
    return (rows * cols * per_entry + extra) / MIB


def main() -> None:
    # --8<-- [start:tables]
    print(f"{'model':<12}{'token table':>15}{'tied':>6}{'params':>9}{'in tables':>11}"
          f"{'both ends':>11}{'float32':>11}{'bfloat16':>10}{'8-bit':>10}")
    models, shares = {}, {}
    for name, (cls, config) in published_configs().items():
        model = models[name] = build_on_meta(cls, config)
        table = model.get_input_embeddings()  # an nn.Embedding
        head = model.get_output_embeddings()  # an nn.Linear (the vocabulary projection)
        assert isinstance(table, nn.Embedding) and table.weight.is_meta
        assert table.weight.shape == (config.vocab_size, model.config.hidden_size)
        tied = head.weight is table.weight  # one Parameter, or two of the same shape
        assert tied == config.tie_word_embeddings

        n_params = sum(p.numel() for p in model.parameters())  # a tied table counted once
        n_tables = sum(p.numel() for p in embedding_parameters(model))
        n_ends = n_tables + (0 if tied else head.weight.numel())  # an untied head, too
        shares[name] = (n_tables / n_params, n_ends / n_params)
        V, D = table.weight.shape
        mib = [table_mib(V, D, dt) for dt in ("float32", "bfloat16", "8-bit")]
        assert mib[0] == V * D * table.weight.element_size() / MIB
        print(f"{name:<12}{str([V, D]):>15}{'yes' if tied else 'no':>6}"
              f"{n_params / 1e6:>8.1f}M{n_tables / n_params:>11.1%}{n_ends / n_params:>11.1%}"
              f"{mib[0]:>7.1f} MiB{mib[1]:>6.1f} MiB{mib[2]:>6.1f} MiB")

    gpt2, bert, llama, t5 = models.values()
    assert gpt2.lm_head.weight is gpt2.transformer.wte.weight
    assert bert.cls.predictions.decoder.weight is bert.bert.embeddings.word_embeddings.weight
    assert llama.lm_head.weight is not llama.model.embed_tokens.weight  # two [32000, 4096]
    assert t5.lm_head.weight is t5.shared.weight  # and both stacks read the same table:
    assert t5.encoder.embed_tokens.weight is t5.decoder.embed_tokens.weight is t5.shared.weight
    assert sum(p.numel() for p in llama.parameters()) == 6_738_415_616  # the "7B"
    assert sum(p.numel() for p in gpt2.parameters()) == 124_439_808  # the "124M"
    # the shares the page quotes: just under a third, just over a fifth, a ninth, under 2 %
    # (+2 % for Llama's head)
    assert 0.30 < shares["GPT-2 small"][0] < 1 / 3 and 1 / 5 < shares["BERT-base"][0] < 0.23
    assert 0.10 < shares["T5-base"][0] < 0.12 and shares["Llama 2 7B"][0] < 0.02
    assert 0.019 < shares["Llama 2 7B"][1] - shares["Llama 2 7B"][0] < 0.02
    assert all(tied_share == share for name, (share, tied_share) in shares.items()
               if name != "Llama 2 7B")  # a tied head adds nothing
    # the figure's description: about 32, 22, 2 and 11 %, plus 2 % for Llama 2's own head
    assert [round(100 * share) for share, _ in shares.values()] == [32, 22, 2, 11]
    assert round(100 * (shares["Llama 2 7B"][1] - shares["Llama 2 7B"][0])) == 2
    # --8<-- [end:tables]

    # --8<-- [start:state_dict]
    names = [n for n, p in t5.named_parameters(remove_duplicate=False) if p is t5.shared.weight]
    assert names == ["shared.weight", "encoder.embed_tokens.weight",
                     "decoder.embed_tokens.weight", "lm_head.weight"]
    assert [n for n, _ in t5.named_parameters()].count("lm_head.weight") == 0
    assert sorted(n for n in t5.state_dict() if n in names) == sorted(names)  # 4 entries, 1 table
    print("\nT5's one table answers to", len(names), "names:", ", ".join(names))
    # --8<-- [end:state_dict]

    # --8<-- [start:positions]
    print()
    for name, model in models.items():
        tables = {n: tuple(m.weight.shape) for n, m in model.named_modules()
                  if isinstance(m, nn.Embedding)}
        position = {n: s for n, s in tables.items() if "position" in n or n.endswith("wpe")
                    or "relative_attention_bias" in n}
        print(f"{name:<12}position parameters: {position or 'none'}")
        if name == "Llama 2 7B":
            assert not position and list(tables) == ["model.embed_tokens"]
            rotary = model.model.rotary_emb  # a buffer of frequencies, not a Parameter
            assert isinstance(rotary, LlamaRotaryEmbedding)
            assert not list(rotary.parameters()) and rotary.inv_freq.shape == (64,)
    assert models["GPT-2 small"].transformer.wpe.weight.shape == (1024, 768)
    assert models["BERT-base"].bert.embeddings.position_embeddings.weight.shape == (512, 768)
    # --8<-- [end:positions]

    # --8<-- [start:rotary]
    torch.manual_seed(0)
    small = LlamaConfig(vocab_size=100, hidden_size=64, intermediate_size=128,
                        num_hidden_layers=1, num_attention_heads=1, num_key_value_heads=1,
                        bos_token_id=1, eos_token_id=2)
    rope = LlamaRotaryEmbedding(small)
    q, k = torch.randn(1, 1, 1, 64), torch.randn(1, 1, 1, 64)  # (batch, heads, seq, head_dim)

    def score(m: int, n: int) -> float:
        """q at position m against k at position n, both rotated as Llama's attention does."""
        cos_q, sin_q = rope(q, torch.tensor([[m]]))
        cos_k, sin_k = rope(k, torch.tensor([[n]]))
        q_m, _ = apply_rotary_pos_emb(q, q, cos_q, sin_q)
        _, k_n = apply_rotary_pos_emb(k, k, cos_k, sin_k)
        torch.testing.assert_close(q_m.norm(), q.norm())  # a rotation: lengths kept
        return (q_m * k_n).sum().item()

    same_offset = [score(m, m - 3) for m in (3, 10, 500)]
    torch.testing.assert_close(same_offset, [same_offset[0]] * 3, rtol=1e-4, atol=1e-4)
    assert abs(score(10, 7) - score(10, 2)) > 1e-3  # another offset, another score
    print(f"\nrotary: score(q@m, k@m-3) for m = 3, 10, 500: "
          f"{', '.join(f'{s:.4f}' for s in same_offset)}")
    # --8<-- [end:rotary]

    # --8<-- [start:alibi]
    heads, T = 8, 6
    alibi = build_alibi_tensor(torch.ones(1, T), num_heads=heads, dtype=torch.float32)
    assert alibi.shape == (heads, 1, T)  # (batch * heads, 1, key position)
    slopes = torch.tensor([2.0 ** (-8 * (h + 1) / heads) for h in range(heads)])
    torch.testing.assert_close(alibi[:, 0, :], slopes[:, None] * torch.arange(T))
    scores = torch.randn(T)  # one query's scores against T keys
    shifted = alibi[0, 0] - alibi[0, 0, -1]  # the same bias minus a constant: 0 at the last key
    torch.testing.assert_close((scores + alibi[0, 0]).softmax(-1), (scores + shifted).softmax(-1))

    def slopes_of(H: int) -> torch.Tensor:
        """BLOOM's slope for each of H heads: the bias at key position 1."""
        return build_alibi_tensor(torch.ones(1, 2), num_heads=H, dtype=torch.float32)[:, 0, 1]

    def power_of_two_slopes(H: int) -> list[float]:
        return [2.0 ** (-8 * (h + 1) / H) for h in range(H)]

    for H in (1, 2, 4, 16, 32, 64, 128):  # powers of two (and 8 above): the formula
        torch.testing.assert_close(slopes_of(H), torch.tensor(power_of_two_slopes(H)))
    for H in (3, 5, 6, 7, 12, 24):  # other head counts: with c the power of two below H,
        c = 2 ** int(math.log2(H))  # the c slopes of c heads, then every other slope of 2c heads
        assert not torch.allclose(slopes_of(H), torch.tensor(power_of_two_slopes(H)))
        expected = power_of_two_slopes(c) + power_of_two_slopes(2 * c)[0::2][: H - c]
        torch.testing.assert_close(slopes_of(H), torch.tensor(expected))
    print("ALiBi bias, head 0 (slope 1/2):", alibi[0, 0].tolist())
    # --8<-- [end:alibi]

    # --8<-- [start:init]
    print(f"\n{'model (small, on the CPU)':<26}{'table std':>10}   initialiser")
    small_configs = {
        "GPT-2": (GPT2LMHeadModel, GPT2Config(vocab_size=4000, n_embd=64, n_layer=1, n_head=2,
                                              n_positions=64, bos_token_id=0, eos_token_id=0)),
        "BERT": (BertForMaskedLM, BertConfig(vocab_size=4000, hidden_size=64,
                                             num_hidden_layers=1, num_attention_heads=2,
                                             intermediate_size=128)),
        "Llama": (LlamaForCausalLM, LlamaConfig(vocab_size=4000, hidden_size=64,
                                                intermediate_size=128, num_hidden_layers=1,
                                                num_attention_heads=2, bos_token_id=1,
                                                eos_token_id=2)),
        "T5": (T5ForConditionalGeneration, T5Config(vocab_size=4000, d_model=64, d_kv=16,
                                                    d_ff=128, num_layers=1, num_heads=4)),
    }
    stds = {}
    for name, (cls, config) in small_configs.items():
        torch.manual_seed(0)
        model = cls(config)  # real storage, filled by the model's own _init_weights
        stds[name] = std = model.get_input_embeddings().weight.std().item()
        if name != "T5":  # every table, positions and segments included: N(0, 0.02)
            for table in (m for m in model.modules() if isinstance(m, nn.Embedding)):
                assert abs(table.weight.std().item() - config.initializer_range) < 0.003
        rule = (f"N(0, {config.initializer_factor:g}) (initializer_factor)" if name == "T5"
                else f"N(0, {config.initializer_range}) (initializer_range)")
        print(f"{name:<26}{std:>10.4f}   {rule}")
    torch.manual_seed(0)
    stds["nn.Embedding"] = std = nn.Embedding(4000, 64).weight.std().item()
    print(f"{'nn.Embedding(4000, 64)':<26}{std:>10.4f}   N(0, 1) (PyTorch's default)")
    for name in ("GPT-2", "BERT", "Llama"):
        assert abs(stds[name] - 0.02) < 0.0005
    bert_table = BertForMaskedLM(small_configs["BERT"][1]).get_input_embeddings()
    assert bert_table.padding_idx == 0 and not bert_table.weight[0].any()  # the pad row: zeros
    assert abs(stds["T5"] - 1.0) < 0.02 and abs(stds["nn.Embedding"] - 1.0) < 0.02
    # --8<-- [end:init]

    # --8<-- [start:no_sqrt]
    ids = torch.tensor([[5, 6, 7, 8]])
    positions = torch.arange(4)
    for name, (cls, config) in small_configs.items():
        torch.manual_seed(0)
        model = cls(config).eval()  # eval(): no dropout between the lookup and the first layer
        table = model.get_input_embeddings()
        assert type(table) is nn.Embedding  # the plain class, not a scaling subclass
        with torch.no_grad():
            if name == "GPT-2":  # token rows plus position rows
                first = model.transformer(ids, output_hidden_states=True).hidden_states[0]
                expected = table(ids) + model.transformer.wpe(positions)
            elif name == "BERT":  # token, position and segment rows, summed, then LayerNorm
                first = model.bert(ids, output_hidden_states=True).hidden_states[0]
                e = model.bert.embeddings
                expected = e.LayerNorm(table(ids) + e.position_embeddings(positions)
                                       + e.token_type_embeddings(torch.zeros_like(ids)))
            elif name == "Llama":  # the token rows alone
                first = model.model(ids, output_hidden_states=True).hidden_states[0]
                expected = table(ids)
            else:  # T5's encoder: the token rows alone
                first = model.encoder(input_ids=ids, output_hidden_states=True).hidden_states[0]
                expected = table(ids)
        torch.testing.assert_close(first, expected)  # no sqrt(d_model) factor anywhere
    print(f"\nno sqrt(d_model) at the input of {', '.join(small_configs)}")
    # --8<-- [end:no_sqrt]

    # --8<-- [start:t5_scale]
    ids, decoder_ids = torch.tensor([[5, 6, 7]]), torch.tensor([[0, 5, 9]])
    print()
    for tie in (None, False):  # the T5Config default, and what T5 v1.1's configs pass
        kwargs = {} if tie is None else {"tie_word_embeddings": tie}
        config = T5Config(vocab_size=4000, d_model=64, d_kv=16, d_ff=128, num_layers=1,
                          num_heads=4, **kwargs)
        assert config.tie_word_embeddings  # forced to True, whatever was passed...
        assert config.scale_decoder_outputs == (tie is not False)  # ...this flag decides
        torch.manual_seed(0)
        model = T5ForConditionalGeneration(config).eval()
        assert model.lm_head.weight is model.shared.weight  # tied in both cases
        out = model(input_ids=ids, decoder_input_ids=decoder_ids, output_hidden_states=True)
        h = out.decoder_hidden_states[-1]  # the decoder's output, after its final norm
        unscaled = h @ model.shared.weight.T  # h . row v of the shared table
        if config.scale_decoder_outputs:  # h shrunk by d_model**-0.5 before the tied projection
            scaled = (h * config.d_model**-0.5) @ model.shared.weight.T
            torch.testing.assert_close(out.logits, scaled)
            ratio = out.logits.std().item() / unscaled.std().item()
            assert math.isclose(ratio, 1 / math.sqrt(config.d_model), rel_tol=1e-4)
        else:  # the same tied table, and no scaling
            torch.testing.assert_close(out.logits, unscaled)
        call = "T5Config()" if tie is None else "T5Config(tie_word_embeddings=False)"
        print(f"{call:<36} scale_decoder_outputs={config.scale_decoder_outputs!s:<6}"
              f"logit std {out.logits.std().item():.2f} (unscaled {unscaled.std().item():.2f})")
    assert not T5Config(scale_decoder_outputs=False).scale_decoder_outputs  # or set it directly
    # --8<-- [end:t5_scale]

    # --8<-- [start:gemma]
    torch.manual_seed(0)
    config = GemmaConfig(vocab_size=100, hidden_size=64, intermediate_size=128, head_dim=16,
                         num_hidden_layers=1, num_attention_heads=4, num_key_value_heads=1,
                         bos_token_id=1, eos_token_id=2, pad_token_id=0)
    table = GemmaForCausalLM(config).get_input_embeddings()
    assert isinstance(table, nn.Embedding) and type(table) is not nn.Embedding  # a subclass
    ids = torch.tensor([5, 6, 7])
    torch.testing.assert_close(table(ids), table.weight[ids] * math.sqrt(64))  # x sqrt(d)
    print(f"\nGemma's table returns rows times sqrt({config.hidden_size}) ="
          f" {table(ids).norm() / table.weight[ids].norm():.1f}")
    # --8<-- [end:gemma]


if __name__ == "__main__":
    main()
