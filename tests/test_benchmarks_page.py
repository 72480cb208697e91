"""The benchmarks page's checks guard what its text says about each device's data set.

Each test changes one thing in a copy of the committed data (the lookup made slow, the GPU's
floor taken away, the one-hot gap made flat, ``torch.compile`` made to win) and runs the page's
blocks that read the data: the block that checks that claim must fail, and only for the device
whose data were changed. The last tests run the model-scale sweep in its quick form and check
that the stored H200 measurements are the numbers of their own records.
"""

from __future__ import annotations

import contextlib
import copy
import io

import pytest

import snippets.benchmarks.lookup_vs_onehot as results
from scripts import ROOT
from tests.markdown_model import read_fences

PAGE = ROOT / "docs" / "benchmarks.md"


def data_blocks(loader: str = "load_results") -> list[str]:
    """The page's executed blocks that read the recorded data through ``loader``."""
    return [
        "\n".join(f.body)
        for f in read_fences(PAGE)
        if f.executed_by_codeblocks and f"{loader}()" in "\n".join(f.body)
    ]


def failing_blocks(monkeypatch, loader: str, sets: list[dict]) -> list[int]:
    """Run every block that reads data through ``loader`` with ``sets`` in place of the
    committed data; return the numbers of the blocks that raised ``AssertionError``."""
    monkeypatch.setattr(results, loader, lambda *args, **kwargs: copy.deepcopy(sets))
    failed = []
    for number, block in enumerate(data_blocks(loader)):
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                code = compile(block, f"{PAGE.name} block {number}", "exec")
                exec(code, {"__name__": "__main__"})
        except AssertionError:
            failed.append(number)
    return failed


def by_device(sets: list[dict], device: str) -> dict:
    (data,) = [d for d in sets if d["machine"]["device"] == device]
    return data


def block_number(loader: str, text: str) -> int:
    (number,) = [n for n, block in enumerate(data_blocks(loader)) if text in block]
    return number


def test_the_page_reads_both_kinds_of_data_set():
    assert len(data_blocks()) >= 7 and len(data_blocks("load_model_results")) == 2
    assert {d["machine"]["device"] for d in results.load_results()} == {"cpu", "cuda"}
    assert {d["machine"]["device"] for d in results.load_model_results()} == {"cpu", "cuda"}


def test_the_committed_data_pass_every_block(monkeypatch):
    for loader in ("load_results", "load_model_results"):
        assert failing_blocks(monkeypatch, loader, getattr(results, loader)()) == []


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_a_slow_lookup_fails_the_first_table(device, monkeypatch):
    sets = results.load_results()
    data = by_device(sets, device)
    for row in data["rows"]:
        if row["method"] == "embedding":
            for key in ("median_s", "p25_s", "p75_s"):
                row[key] *= 1000
        else:
            row["ratio_to_embedding"] /= 1000
    failed = failing_blocks(monkeypatch, "load_results", sets)
    assert block_number("load_results", "the lookup beats every product at every V") in failed


def test_a_gpu_without_a_floor_fails_the_gpu_section(monkeypatch):
    """Times proportional to the bytes moved, as on the CPU: no 10 µs floor any more."""
    sets = results.load_results()
    for row in by_device(sets, "cuda")["rows"]:
        scale = row["N"] * row["D"] / (1024 * 64)
        for key in ("median_s", "p25_s", "p75_s", "iqr_s"):
            row[key] *= scale
    failed = failing_blocks(monkeypatch, "load_results", sets)
    assert block_number("load_results", "a floor near 10 µs") in failed


def test_a_flat_onehot_gap_on_the_gpu_fails(monkeypatch):
    sets = results.load_results()
    for row in by_device(sets, "cuda")["rows"]:
        if row["method"].startswith("onehot") or row["method"] == "linear_onehot":
            row["ratio_to_embedding"] = 5.0
    failed = failing_blocks(monkeypatch, "load_results", sets)
    assert block_number("load_results", "the lookup beats every product at every V") in failed


def test_weight_indexing_slower_on_the_gpu_fails(monkeypatch):
    sets = results.load_results()
    for row in by_device(sets, "cuda")["rows"]:
        if row["method"] == "indexing":
            row["ratio_to_embedding"] = 3.0
    failed = failing_blocks(monkeypatch, "load_results", sets)
    assert failed == [block_number("load_results", "weight[idx]: a little faster")]


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_a_compiled_product_as_fast_as_the_lookup_fails(device, monkeypatch):
    sets = results.load_model_results()
    data = by_device(sets, device)
    lookup = {
        (r["part"], r["model"], r["dtype"], r["N"]): r["median_s"]
        for r in data["rows"]
        if r["method"] == "embedding" and r["pass"] == "forward"
    }
    for row in data["rows"]:
        if row["method"] == "onehot_compiled":
            row["median_s"] = lookup[row["part"], row["model"], row["dtype"], row["N"]]
            row["ratio_to_embedding"] = 1.0
    assert failing_blocks(monkeypatch, "load_model_results", sets) != []


def test_the_h200_model_scale_rows_are_the_numbers_of_their_records():
    """The H200's model-scale data set was not written by this program: each of its rows must
    be one number of the printed records stored beside them, under the right names."""
    data = by_device(results.load_model_results(), "cuda")
    assert data["command"] is None and data["measured_by"].startswith("not this program")
    rec = data["records"]
    t = {
        (r["part"], r["V"], r["dtype"], r["N"], r["pass"], r["method"]): r["median_s"]
        for r in data["rows"]
    }
    expected = {}
    for r in rec["model_scale"]:
        dt = r["dtype"].removeprefix("torch.")
        for pass_, key, lookup, onehot in [
            ("forward", "fwd", "embedding", "onehot_prebuilt"),
            ("forward+backward", "fwdbwd", "embedding", "onehot_prebuilt"),
        ]:
            expected["scale", r["V"], dt, r["N"], pass_, lookup] = r[f"{key}_lookup_s"]
            expected["scale", r["V"], dt, r["N"], pass_, onehot] = r[f"{key}_onehot_s"]
    c = rec["compile"]
    for method, key in [
        ("embedding", "lookup_s"),
        ("onehot_inside", "eager_onehot_s"),
        ("onehot_compiled", "compiled_onehot_s"),
    ]:
        expected["compile", c["V"], "float32", c["N"], "forward", method] = c[key]
    for s in rec["sparse_step"]:
        method = "embedding_sparse" if s["sparse"] else "embedding"
        expected["sparse_step", 128_256, "float32", 8_192, "forward+backward", method] = s[
            "median_s"
        ]
    for name, b in rec["llama_scale_lookup_vs_onehot"].items():
        dt = name.removeprefix("torch.")
        for method, key in [
            ("embedding", "lookup_s"),
            ("copy", "copy_same_bytes_s"),
            ("onehot_prebuilt", "onehot_matmul_s"),
        ]:
            expected["bandwidth", b["V"], dt, b["N"], "forward", method] = b[key]
    assert t == expected


def test_the_quick_model_sweep_checks_and_keeps_nothing(tmp_path):
    out = results.main(["--quick", "--models", "--output", str(tmp_path / "m.json")])
    (data,) = results.load_model_results(tmp_path, allow_quick=True)
    assert out == tmp_path / "m.json" and data["skipped"] == []
    methods = {(r["pass"], r["method"]) for r in data["rows"]}
    assert methods == {
        ("forward", m)
        for m in ("embedding", "onehot_prebuilt", "onehot_inside", "onehot_compiled", "copy")
    } | {("forward+backward", m) for m in ("embedding", "embedding_sparse", "onehot_prebuilt")}
    assert {r["dtype"] for r in data["rows"]} == {"float32", "bfloat16"}


def test_the_memory_rule_skips_with_its_reason(tmp_path):
    results.main(["--quick", "--models", "--max-gb", "0.001", "--output", str(tmp_path / "m.json")])
    (data,) = results.load_model_results(tmp_path, allow_quick=True)
    assert data["rows"] == [] and len(data["skipped"]) == 2
    V, D = results.QUICK_MODELS["tiny"]
    for s, itemsize in zip(data["skipped"], (4, 2), strict=True):
        assert s["estimated_bytes"] == results.model_bytes(V, D, 64, itemsize) > 10**6
        assert "above the limit of 0.0 GB (--max-gb)" in s["reason"]


def test_the_memory_estimate_counts_table_gradient_and_one_hot_matrices():
    V, D, N = 128_256, 4_096, 8_192  # Llama 3, float32: 4.2 GB each for W, its gradient, one-hot
    assert results.model_bytes(V, D, N, 4) == 2 * V * D * 4 + N * V * 4 + N * V * 12


def test_a_cuda_run_without_output_stops_before_it_starts():
    """``results/cuda.json`` is the H200's reference data set: a CUDA run must name its file."""
    with pytest.raises(SystemExit, match="a CUDA run needs --output"):
        results.main(["--device", "cuda"])


def test_the_page_never_sends_a_gpu_run_into_results():
    """Every command on the page that runs the program on CUDA writes a new file outside
    ``results/``, so following the page keeps the H200's data set and the first block's list."""
    commands = [
        line
        for f in read_fences(PAGE)
        if f.info.startswith("console")
        for line in f.body
        if "lookup_vs_onehot.py" in line and "--device cuda" in line
    ]
    assert commands, "the page no longer shows how to run on a GPU"
    for line in commands:
        output = line.split("--output", 1)[1].split()[0] if "--output" in line else None
        assert output and "results/" not in output, line


def test_a_lookup_far_above_the_floor_fails_the_gpu_section(monkeypatch):
    """The page says the H200's lookup took at most about twice the fastest call's time."""
    sets = results.load_results()
    for row in by_device(sets, "cuda")["rows"]:  # every lookup 1.5 times slower: still flat,
        if row["method"] == "embedding" and row["pass"] == "forward":  # but 3 times the floor
            row["median_s"] *= 1.5
    failed = failing_blocks(monkeypatch, "load_results", sets)
    assert block_number("load_results", "the lookup: close to the floor") in failed


def test_a_float32_gap_that_shrinks_with_v_fails(monkeypatch):
    """In float32 the H200's one-hot gap grows with V (GPT-2, Llama 3, 256k)."""
    sets = results.load_model_results()
    for row in by_device(sets, "cuda")["rows"]:
        if row["part"] == "scale" and row["dtype"] == "float32" and row["model"] == "GPT-2":
            if row["method"] == "onehot_prebuilt" and row["pass"] == "forward":
                row["ratio_to_embedding"] = 5_000.0
    assert failing_blocks(monkeypatch, "load_model_results", sets) != []


def test_one_timer_for_every_h200_row_fails(monkeypatch):
    """The page says the H200's model-scale rows come from two timers."""
    sets = results.load_model_results()
    for row in by_device(sets, "cuda")["rows"]:
        row["timer"] = "time.perf_counter() around each call"
    assert failing_blocks(monkeypatch, "load_model_results", sets) != []


def test_compare_ratios_pairs_the_rows_both_data_sets_ran():
    cpu, h200 = results.load_results()
    pairs = results.compare_ratios(cpu, h200)
    assert len(pairs) == len(h200["rows"])  # the CPU ran every row the H200 did, and SciPy too
    assert all(p["mine"] == 1.0 for p in pairs if p["method"] == "embedding")
    with pytest.raises(ValueError):
        results.compare_ratios({"rows": []}, h200)
