"""Time an embedding lookup against its one-hot, Linear and sparse-matrix equivalents.

For the same ids ``idx`` (int64, shape ``[N]``) and the same table ``W`` (float32, shape
``[V, D]``: ``num_embeddings`` by ``embedding_dim``), every method below computes the same
``[N, D]`` output, and (where it has a backward) the same ``[V, D]`` weight gradient. The program
checks that first, then times each method with ``torch.utils.benchmark.Timer.blocked_autorange``,
measures its peak memory, and writes everything, with a description of the machine, to one JSON
file that the page "Benchmarks" reads when the site builds.

The full sweep is one command, run from the repository root (a few minutes on two cores)::

    python snippets/benchmarks/lookup_vs_onehot.py

It writes ``snippets/benchmarks/results/<device>.json`` (``cpu.json``). ``--quick`` runs tiny sizes
in a few seconds (the test suite runs it) and writes to a temporary folder that is deleted
afterwards, unless ``--output`` names a file; it refuses to write into ``results/``, so a quick run
never replaces committed data. ``--device cuda`` runs the torch methods on a GPU (SciPy is
skipped, memory comes from ``torch.cuda.max_memory_allocated``) and needs ``--output``:
``results/cuda.json`` holds the H200's reference data set, which the benchmarks page checks, so a
CUDA run writes a new file and :func:`compare_ratios` compares it with the H200's.

``--models`` runs the model-scale sweep instead: the embedding tables of GPT-2 (50,257 x 768),
Llama 3 (128,256 x 4,096) and a 256k vocabulary (256,000 x 2,048), in float32 and bfloat16, the
lookup (dense and ``sparse=True`` gradient) against the one-hot product (prebuilt, built in the
call, and built in the call under ``torch.compile``), forward and forward+backward. It writes
``results/models/<device>.json``. A batch has ``--model-ids`` ids (8,192 on CUDA; 32 on a CPU,
where the one-hot product's ``N*V*D`` multiply-adds take about a second at Llama 3's size).
The memory rule: a configuration whose estimate (:func:`model_bytes`: the table, its dense
gradient and the one-hot matrices) is above ``--max-gb`` (default 3 on a CPU, 80 % of the GPU's
memory on CUDA) is not run; the data set lists it under ``skipped`` with that reason.

What is measured, and how:

* **Time**: ``Timer(...).blocked_autorange(min_run_time=...)`` runs the statement in blocks long
  enough to hide the timer's overhead; the per-call times of the blocks (at least five blocks
  where that fits in ``--max-run-time``) give the median and the interquartile range (IQR), in
  seconds. ``Timer`` pins torch's intra-op threads (``--threads``, default 1). On the CPU the
  clock is the calling thread's CPU time (``time.thread_time``, ``--clock thread``): on a machine
  shared with other jobs, wall-clock time also counts the time spent waiting for a core. With
  one thread every torch and SciPy call here runs on the calling thread, autograd's CPU backward
  included. See https://docs.pytorch.org/docs/2.15/benchmark_utils.html.
* **forward** runs under ``torch.no_grad()``; **forward+backward** runs with autograd, calls
  ``out.backward(G)`` with a fixed upstream gradient ``G`` (``[N, D]``) and sets the gradient to
  ``None`` afterwards, as ``optimizer.zero_grad()`` does, so every call allocates its gradient.
* **Ratio**: method median / ``F.embedding`` median, same pass, same sizes, same run.
* **Peak memory** (bytes): the largest amount of memory the call allocates on top of what
  existed before it. For torch methods it is the running sum of the allocation and free events
  that ``torch.profiler.profile(profile_memory=True)`` records for one call (``tracemalloc`` does
  not see torch's allocator). For SciPy it is ``tracemalloc``'s peak, which sees NumPy's buffers
  (and a few hundred bytes of Python objects). Operands built before timing (a prebuilt one-hot
  matrix, a sparse matrix) are not part of the peak; their size is reported as ``input_bytes``.
* **Bandwidth**: a lookup reads ``N*D`` floats and writes ``N*D`` floats; ``copy`` clones a
  contiguous ``[N, D]`` tensor, which moves the same bytes. Both are timed in the same run.

Run ``python snippets/benchmarks/lookup_vs_onehot.py --help`` for the options. Exit status 0 on
success; an ``AssertionError`` if two methods disagree; ``SystemExit`` for a quick run pointed at
``results/``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shlex
import sys
import tempfile
import time
import tracemalloc
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy
import scipy.sparse
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.benchmark import Measurement, Timer
from torch.utils.benchmark.utils import timer as timer_module

#: Where committed data sets live; the page and the figures read every ``*.json`` here.
RESULTS_DIR = Path(__file__).resolve().parent / "results"
#: Version of the JSON layout written by :func:`main` (bump it when the layout changes).
SCHEMA = 1

FORWARD, TRAIN = "forward", "forward+backward"
#: Fewest timed blocks a measurement should have, so that its interquartile range means something.
MIN_BLOCKS = 5

#: Sweeps of the full run: each varies one size around the base (N, D) = (1024, 64).
FULL_SWEEP = {
    "vocab": {"V": [1_000, 3_000, 10_000, 30_000, 100_000], "D": [64], "N": [1024]},
    "dim": {"V": [10_000], "D": [16, 256], "N": [1024]},
    "batch": {"V": [10_000], "D": [64], "N": [128, 8192]},
}
QUICK_SWEEP = {
    "vocab": {"V": [2_000], "D": [16], "N": [64]},
}

#: The model-scale sweep (``--models``): num_embeddings x embedding_dim of three real tables.
MODELS = {"GPT-2": (50_257, 768), "Llama 3": (128_256, 4_096), "256k vocabulary": (256_000, 2_048)}
QUICK_MODELS = {"tiny": (3_000, 64)}
MODEL_DTYPES = ("float32", "bfloat16")
#: Ids per batch in the model sweep, by device (``--model-ids`` overrides it).
MODEL_IDS = {"cuda": 8_192, "cpu": 32}
#: Where the model-scale data sets live (a folder of their own: ``load_results`` reads only
#: ``results/*.json``), and the version of their layout.
MODELS_DIR = RESULTS_DIR / "models"
MODEL_SCHEMA = "model-scale/1"


@dataclass
class Method:
    """One way of computing ``W[idx]``.

    ``forward()`` returns the ``[N, D]`` output (a torch tensor or a NumPy array).
    ``backward()`` runs forward and backward and leaves the weight gradient where ``grad()``
    reads it (as a ``[V, D]`` tensor, dense or sparse) until ``reset()`` clears it; it is None for
    the copy reference, which has no backward. ``input_bytes`` is the size of operands built
    before timing (a prebuilt one-hot matrix, a sparse matrix), which no timing includes.
    """

    key: str
    label: str
    forward: Callable[[], object]
    backward: Callable[[], None] | None = None
    grad: Callable[[], torch.Tensor] | None = None
    reset: Callable[[], None] | None = None
    input_bytes: int = 0
    uses_torch_allocator: bool = True
    forward_timed: bool = True

    def step(self) -> None:
        """One training step's worth of work: forward, backward, then drop the gradient."""
        self.backward()
        self.reset()


def build_methods(V: int, D: int, N: int, device: str) -> tuple[list[Method], torch.Tensor]:
    """Create the inputs for one size and every method that computes ``W[idx]`` from them.

    ``V`` is num_embeddings, ``D`` embedding_dim, ``N`` the number of ids; all positive ints.
    Returns the methods (``F.embedding`` first, the copy reference last) and the expected output
    (float32 ``[N, D]``, on the CPU). Everything is drawn after ``torch.manual_seed(0)``, so every
    run looks up the same rows of the same table.
    """
    torch.manual_seed(0)
    table = torch.randn(V, D)  # W: [V, D], float32
    idx = torch.randint(V, (N,)).to(device)  # [N], int64
    upstream = torch.randn(N, D).to(device)  # G: the gradient arriving from above, [N, D]
    expected = table[idx.cpu()]
    methods: list[Method] = []

    def add(key: str, label: str, fn: Callable[[torch.Tensor], torch.Tensor],
            param: torch.Tensor | None = None, *, transpose_grad: bool = False,
            backward_only: bool = False, input_bytes: int = 0) -> None:
        """Register ``fn(param)``; ``param`` defaults to a fresh leaf copy of the table."""
        if param is None:
            param = table.clone().to(device).requires_grad_()

        def backward() -> None:
            fn(param).backward(upstream)

        def reset() -> None:
            param.grad = None

        def grad() -> torch.Tensor:
            return param.grad.T if transpose_grad else param.grad

        methods.append(Method(key, label, lambda: fn(param), backward, grad, reset,
                              input_bytes=input_bytes, forward_timed=not backward_only))

    # --8<-- [start:methods]
    # add(key, label, fn, param): fn(param) must return W[idx]; param defaults to a leaf copy of W
    onehot = F.one_hot(idx, V).float()  # [N, V], built once, outside the timing
    rows = torch.arange(N, device=device)
    coo = torch.sparse_coo_tensor(torch.stack([rows, idx]), torch.ones(N, device=device),
                                  (N, V), check_invariants=True).coalesce()
    with warnings.catch_warnings():  # "Sparse CSR tensor support is in beta state"
        warnings.simplefilter("ignore", UserWarning)
        csr = coo.to_sparse_csr()
    offsets = rows  # one id per bag: a bag of one id sums to that id's row
    bag = nn.EmbeddingBag.from_pretrained(table.to(device), freeze=False, mode="sum")
    bag_sparse = nn.EmbeddingBag.from_pretrained(table.to(device), freeze=False, mode="sum",
                                                 sparse=True)
    lin = nn.Linear(V, D, bias=False, device=device)  # its weight is [D, V]: the table, transposed
    with torch.no_grad():
        lin.weight.copy_(table.T)

    add("embedding", "F.embedding", lambda w: F.embedding(idx, w))
    add("embedding_sparse", "F.embedding, sparse=True",
        lambda w: F.embedding(idx, w, sparse=True), backward_only=True)
    add("indexing", "weight[idx]", lambda w: w[idx])
    add("index_select", "weight.index_select(0, idx)", lambda w: w.index_select(0, idx))
    add("embedding_bag", "nn.EmbeddingBag(mode='sum'), bags of one id",
        lambda w: bag(idx, offsets), bag.weight)
    add("embedding_bag_sparse", "nn.EmbeddingBag, sparse=True",
        lambda w: bag_sparse(idx, offsets), bag_sparse.weight, backward_only=True)
    add("onehot_inside", "F.one_hot(idx, V).float() @ W, one-hot built in the timing",
        lambda w: F.one_hot(idx, V).float() @ w)
    add("onehot_prebuilt", "one-hot @ W, one-hot prebuilt", lambda w: onehot @ w,
        input_bytes=onehot.nbytes)
    add("linear_onehot", "nn.Linear(V, D, bias=False) on the prebuilt one-hot",
        lambda w: lin(onehot), lin.weight, transpose_grad=True, input_bytes=onehot.nbytes)
    add("sparse_coo", "torch.sparse.mm(COO one-hot, W)", lambda w: torch.sparse.mm(coo, w),
        input_bytes=coo.indices().nbytes + coo.values().nbytes)
    add("sparse_csr", "CSR one-hot @ W", lambda w: csr @ w,
        input_bytes=csr.crow_indices().nbytes + csr.col_indices().nbytes + csr.values().nbytes)

    if device == "cpu":
        # SciPy has no autograd: its "backward" is the product autograd would compute, X.T @ G.
        xs = scipy.sparse.csr_array(
            (np.ones(N, np.float32), (np.arange(N), idx.numpy())), shape=(N, V)
        )
        w_np, g_np = table.numpy(), upstream.numpy()
        box: dict[str, np.ndarray] = {}

        def sp_backward() -> None:
            xs @ w_np
            box["grad"] = xs.T @ g_np

        methods.append(Method(
            "scipy_csr", "SciPy csr_array @ W (backward: X.T @ G by hand)", lambda: xs @ w_np,
            sp_backward, lambda: torch.from_numpy(box["grad"]), box.clear,
            input_bytes=xs.data.nbytes + xs.indices.nbytes + xs.indptr.nbytes,
            uses_torch_allocator=False,
        ))

    src = expected.to(device).contiguous()  # [N, D]: the bytes a lookup reads and writes
    methods.append(Method("copy", "copy of an [N, D] tensor (clone), no lookup", src.clone))
    # --8<-- [end:methods]
    return methods, expected


def check_agreement(methods: list[Method], expected: torch.Tensor) -> None:
    """Assert every method returns ``expected`` and the same weight gradient as ``F.embedding``.

    Outputs must be equal up to float32 rounding (``torch.testing.assert_close`` defaults);
    gradients are compared densely (a sparse gradient is converted with ``to_dense()``).
    Raises ``AssertionError`` naming the method that disagrees.
    """
    reference_grad = None
    for m in methods:
        with torch.no_grad():
            out = m.forward()
        out = torch.as_tensor(out).cpu()
        torch.testing.assert_close(out, expected, msg=lambda s, k=m.key: f"{k}: {s}")
        if m.backward is None:
            continue
        m.backward()
        grad = m.grad()
        grad = (grad.to_dense() if grad.layout != torch.strided else grad).cpu()
        m.reset()
        if reference_grad is None:
            reference_grad = grad  # F.embedding's dense [V, D] gradient comes first
        torch.testing.assert_close(grad, reference_grad, msg=lambda s, k=m.key: f"{k}: {s}")


def peak_bytes(fn: Callable[[], object], *, torch_allocator: bool, device: str) -> int:
    """Peak bytes allocated during one call of ``fn`` above what was allocated before it.

    Torch on the CPU: replays the profiler's memory events (``profile_memory=True``; read from
    ``prof.profiler.kineto_results``, an internal attribute in torch 2.13, because the public
    event list attributes allocations to operators instead of listing them in time order) and
    returns the highest running total. CUDA: ``torch.cuda.max_memory_allocated``.
    NumPy/SciPy (``torch_allocator=False``): ``tracemalloc``'s peak.
    """
    if not torch_allocator:
        tracing = tracemalloc.is_tracing()  # leave a caller's tracing (pytest's, say) running
        if not tracing:
            tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            fn()
            return tracemalloc.get_traced_memory()[1] - before
        finally:
            if not tracing:
                tracemalloc.stop()
    if device == "cuda":
        torch.cuda.synchronize()
        base = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        fn()
        torch.cuda.synchronize()
        return torch.cuda.max_memory_allocated() - base
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU],
                                profile_memory=True) as prof:
        fn()
    events = [e for e in prof.profiler.kineto_results.events() if e.name() == "[memory]"]
    events.sort(key=lambda e: e.start_ns())
    running = peak = 0
    for e in events:
        running += e.nbytes()  # positive: allocation, negative: free
        peak = max(peak, running)
    return peak


#: Clocks ``--clock`` chooses from. ``thread`` is the CPU time of the calling thread: on a shared
#: machine it leaves out the time spent waiting for a core, which wall-clock time includes.
#: ``wall`` is ``Timer``'s default clock, which also synchronizes an accelerator (needed on CUDA).
CLOCKS: dict[str, Callable[[], float]] = {"thread": time.thread_time, "wall": timer_module.timer}


def time_call(fn: Callable[[], object], *, threads: int, min_run_time: float,
              max_run_time: float, clock: str) -> dict:
    """Time ``fn`` with ``Timer.blocked_autorange``; return per-call seconds and spread.

    ``clock`` is a key of :data:`CLOCKS`. ``min_run_time`` (seconds) is raised for slow calls so
    that about five blocks are measured, up to ``max_run_time`` (at least three calls). Returned
    keys: ``median_s``, ``iqr_s``, ``p25_s``, ``p75_s`` (seconds per call, from the blocks' per-call
    times) and ``blocks`` (how many blocks were measured).
    """
    now = CLOCKS[clock]
    start = now()
    fn()  # one call first: a warm-up, and an estimate of the cost of one call
    one = now() - start
    budget = min(max(min_run_time, 5.5 * one), max(max_run_time, 3 * one))
    timer = Timer(stmt="fn()", globals={"fn": fn}, num_threads=threads, timer=now)
    m = timer.blocked_autorange(min_run_time=budget)
    # blocked_autorange may stop after one or two long blocks; add blocks of the same size until
    # there are MIN_BLOCKS (for a spread), unless that would take longer than max_run_time.
    missing = MIN_BLOCKS - len(m.raw_times)
    block = m.raw_times[0]
    if missing > 0 and 2 * missing * block <= max_run_time:  # timeit() warms up first: 2x
        (m,) = Measurement.merge([m, *(timer.timeit(m.number_per_run) for _ in range(missing))])
    q = torch.tensor(m.times, dtype=torch.float64).quantile(torch.tensor([0.25, 0.75],
                                                                         dtype=torch.float64))
    return {
        "median_s": m.median,
        "iqr_s": m.iqr,
        "p25_s": q[0].item(),
        "p75_s": q[1].item(),
        "blocks": len(m.times),
    }


def no_grad(fn: Callable[[], object]) -> Callable[[], object]:
    def call() -> object:
        with torch.no_grad():
            return fn()

    return call


def bench_size(V: int, D: int, N: int, sweep: str, args: argparse.Namespace) -> list[dict]:
    """Check and time every method for one size; return one row per (method, pass)."""
    methods, expected = build_methods(V, D, N, args.device)
    check_agreement(methods, expected)
    rows = []
    for pass_ in (FORWARD, TRAIN):
        base = None
        for m in methods:
            if pass_ == FORWARD and not m.forward_timed or pass_ == TRAIN and m.backward is None:
                continue
            fn = no_grad(m.forward) if pass_ == FORWARD else m.step
            t = time_call(fn, threads=args.threads, min_run_time=args.min_run_time,
                          max_run_time=args.max_run_time, clock=args.clock)
            if m.key == "embedding":
                base = t["median_s"]
            rows.append({
                "sweep": sweep, "V": V, "D": D, "N": N, "pass": pass_, "method": m.key,
                "label": m.label, **t, "ratio_to_embedding": t["median_s"] / base,
                "peak_bytes": peak_bytes(fn, torch_allocator=m.uses_torch_allocator,
                                         device=args.device),
                "peak_source": ("torch.cuda.max_memory_allocated" if args.device == "cuda"
                                else "torch.profiler" if m.uses_torch_allocator
                                else "tracemalloc"),
                "input_bytes": m.input_bytes,
            })
            print(f"{sweep:>5} V={V:<7} D={D:<4} N={N:<5} {pass_:<16} {m.key:<21}"
                  f" {t['median_s'] * 1e6:12.1f} us  x{rows[-1]['ratio_to_embedding']:9.2f}",
                  flush=True)
    return rows


def model_bytes(V: int, D: int, N: int, itemsize: int) -> int:
    """Estimated peak bytes of one model-scale configuration (the memory rule of ``--max-gb``).

    ``V`` x ``D`` table of ``itemsize``-byte numbers, ``N`` ids. The sum of what can be alive at
    once: the table and its dense ``[V, D]`` gradient, the prebuilt ``[N, V]`` one-hot matrix,
    and a one-hot matrix built in the call (int64 from ``F.one_hot``, then its copy in the
    table's dtype). Returns bytes (int).
    """
    return 2 * V * D * itemsize + N * V * itemsize + N * V * (8 + itemsize)


def bench_model(name: str, V: int, D: int, N: int, dtype: str,
                args: argparse.Namespace) -> list[dict]:
    """Check and time the lookup against the one-hot product for one table; one row per
    (method, pass).

    ``dtype`` is ``"float32"`` or ``"bfloat16"`` (table, one-hot matrix and upstream gradient).
    Methods: ``embedding`` (``F.embedding``, dense gradient), ``embedding_sparse``
    (``sparse=True``, forward+backward only), ``onehot_prebuilt`` (a one-hot matrix built before
    the timing, ``@ W``), ``onehot_inside`` (built in the call, forward only),
    ``onehot_compiled`` (the same function under ``torch.compile``, forward only) and ``copy``
    (a clone of the ``[N, D]`` output, forward only). Every output must equal ``W[idx]`` (the
    one-hot products up to ``torch.testing.assert_close``'s tolerance for ``dtype``), and every
    weight gradient must hold the same rows at the looked-up ids; ``AssertionError`` otherwise.
    """
    dt = getattr(torch, dtype)
    dev = args.device
    gen = torch.Generator(device=dev).manual_seed(0)
    table = torch.randn(V, D, dtype=dt, device=dev, generator=gen).requires_grad_()  # W
    idx = torch.randint(V, (N,), device=dev, generator=gen)  # [N], int64
    upstream = torch.randn(N, D, dtype=dt, device=dev, generator=gen)  # G, [N, D]
    onehot = F.one_hot(idx, V).to(dt)  # [N, V], prebuilt

    def onehot_product(ids: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return F.one_hot(ids, w.shape[0]).to(w.dtype) @ w

    torch.compiler.reset()  # a fresh compilation for every table: no cache limit reached
    compiled = torch.compile(onehot_product, backend=args.compile_backend)
    forward = {
        "embedding": ("F.embedding(idx, W)", lambda: F.embedding(idx, table)),
        "onehot_prebuilt": ("one-hot @ W, one-hot prebuilt", lambda: onehot @ table),
        "onehot_inside": ("F.one_hot(idx, V).to(W.dtype) @ W", lambda: onehot_product(idx, table)),
        "onehot_compiled": (f"torch.compile(one-hot product), backend {args.compile_backend}",
                            lambda: compiled(idx, table)),
        "copy": ("copy of an [N, D] tensor (clone), no lookup", None),
    }
    train = {
        "embedding": ("F.embedding(idx, W), dense gradient", lambda: F.embedding(idx, table)),
        "embedding_sparse": ("F.embedding(idx, W, sparse=True)",
                             lambda: F.embedding(idx, table, sparse=True)),
        "onehot_prebuilt": ("one-hot @ W, one-hot prebuilt", lambda: onehot @ table),
    }
    with torch.no_grad():
        expected = F.embedding(idx, table)
        forward["copy"] = (forward["copy"][0], expected.clone)
        for key, (_, fn) in forward.items():
            torch.testing.assert_close(fn(), expected, msg=lambda m, k=key: f"{k}: {m}")
    rows_seen = idx.unique()
    reference = None
    for key, (_, fn) in train.items():
        fn().backward(upstream)
        grad = table.grad
        if grad.is_sparse:  # coalesced: one row per distinct id, sorted, as rows_seen
            grad = grad.coalesce()
            assert torch.equal(grad.indices()[0], rows_seen), key
            got = grad.values()
        else:
            got = grad.index_select(0, rows_seen)
        table.grad = None
        reference = got if reference is None else reference
        torch.testing.assert_close(got, reference, msg=lambda m, k=key: f"{k}: {m}")

    def step(fn: Callable[[], torch.Tensor]) -> Callable[[], None]:
        def call() -> None:
            fn().backward(upstream)
            table.grad = None  # as optimizer.zero_grad() does

        return call

    rows = []
    for pass_, methods in ((FORWARD, forward), (TRAIN, train)):
        base = None
        for key, (label, fn) in methods.items():
            call = no_grad(fn) if pass_ == FORWARD else step(fn)
            t = time_call(call, threads=args.threads, min_run_time=args.min_run_time,
                          max_run_time=args.max_run_time, clock=args.clock)
            base = t["median_s"] if key == "embedding" else base
            rows.append({"part": "scale", "model": name, "V": V, "D": D, "N": N, "dtype": dtype,
                         "pass": pass_, "method": key, "label": label, **t,
                         "ratio_to_embedding": t["median_s"] / base})
            print(f"{name:>16} {dtype:<8} N={N:<5} {pass_:<16} {key:<17}"
                  f" {t['median_s'] * 1e6:12.1f} us  x{rows[-1]['ratio_to_embedding']:9.2f}",
                  flush=True)
    return rows


def model_sweep(args: argparse.Namespace) -> tuple[dict, list[dict], list[dict]]:
    """Run the model-scale sweep; return its settings, its rows and the configurations skipped
    by the memory rule (each with the estimate, the limit and the reason)."""
    models = QUICK_MODELS if args.quick else MODELS
    N = args.model_ids or (64 if args.quick else MODEL_IDS[args.device])
    if args.max_gb is not None:
        limit = int(args.max_gb * 1e9)
    elif args.device == "cuda":
        limit = int(0.8 * torch.cuda.get_device_properties(0).total_memory)
    else:
        limit = 3 * 10**9
    rows, skipped = [], []
    for name, (V, D) in models.items():
        for dtype in MODEL_DTYPES:
            need = model_bytes(V, D, N, getattr(torch, dtype).itemsize)
            if need > limit:
                reason = (f"estimated {need / 1e9:.1f} GB (table, dense gradient, one-hot "
                          f"matrices) is above the limit of {limit / 1e9:.1f} GB (--max-gb)")
                skipped.append({"model": name, "V": V, "D": D, "N": N, "dtype": dtype,
                                "estimated_bytes": need, "limit_bytes": limit, "reason": reason})
                print(f"{name:>16} {dtype:<8} skipped: {reason}", flush=True)
                continue
            rows += bench_model(name, V, D, N, dtype, args)
            torch.compiler.reset()  # drop the compiled function, which holds the last table
            if args.device == "cuda":
                torch.cuda.empty_cache()  # the table and its gradient: gone with bench_model
    settings = {"models": {name: {"V": V, "D": D} for name, (V, D) in models.items()},
                "dtypes": list(MODEL_DTYPES), "N": N, "index_dtype": "int64", "seed": 0,
                "clock": args.clock, "min_run_time_s": args.min_run_time,
                "max_run_time_s": args.max_run_time, "max_bytes": limit,
                "compile_backend": args.compile_backend}
    return settings, rows, skipped


def load_model_results(directory: Path = MODELS_DIR, *, allow_quick: bool = False) -> list[dict]:
    """Every model-scale data set in ``directory`` (``*.json``), sorted by file name.

    Each is the dict written by ``--models`` (or a record of another measurement stored in the
    same layout: its ``measured_by`` says how it was made), with ``"file"`` added. Raises
    ``ValueError`` for another schema, or a quick run unless ``allow_quick``.
    """
    sets = []
    for path in sorted(Path(directory).glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("schema") != MODEL_SCHEMA or (data.get("quick") and not allow_quick):
            raise ValueError(f"{path}: not a model-scale data set of schema {MODEL_SCHEMA}")
        sets.append({**data, "file": path.name})
    return sets


def cpu_model() -> str:
    """The CPU's model name from ``/proc/cpuinfo`` (Linux), else ``platform.processor()``."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def describe_machine(args: argparse.Namespace) -> dict:
    """What ran the benchmark: CPU, cores, threads, library versions, load, and the GPU if any."""
    info = {
        "device": args.device,
        "cpu_model": cpu_model(),
        "logical_cpus": os.cpu_count(),
        "usable_cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "torch_threads": args.threads,
        "torch": torch.__version__,
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "python": platform.python_version(),
        "os": platform.platform(),
        "load_average_start": list(os.getloadavg()),
        "note": args.note,
    }
    if args.device == "cuda":
        info["gpu"] = torch.cuda.get_device_name()
    return info


def load_results(directory: Path = RESULTS_DIR, *, allow_quick: bool = False) -> list[dict]:
    """Every data set in ``directory`` (``*.json`` written by this program), sorted by file name.

    Each is the dict that :func:`main` wrote, with ``"file"`` (the file name) added. Raises
    ``ValueError`` for a file with another schema version, or one written by a quick run unless
    ``allow_quick``.
    """
    sets = []
    for path in sorted(Path(directory).glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("schema") != SCHEMA or (data.get("quick") and not allow_quick):
            raise ValueError(f"{path}: not a full-sweep data set of schema {SCHEMA}")
        sets.append({**data, "file": path.name})
    return sets


def compare_ratios(mine: dict, reference: dict) -> list[dict]:
    """Each method's time over the lookup's (``ratio_to_embedding``) in two data sets of
    :func:`load_results`, at every sweep, size and pass that both ran.

    ``mine`` and ``reference`` are data-set dicts (schema :data:`SCHEMA`), for instance a new GPU's
    and the committed H200's. Returns one dict per shared row: ``sweep``, ``V``, ``N``, ``D``
    (ints), ``method``, ``pass`` and the two ratios, ``mine`` and ``reference`` (floats, no unit),
    in the order of ``reference``'s rows. Raises ``ValueError`` if they share no row.
    """
    fields = ("sweep", "V", "N", "D", "method", "pass")
    ours = {tuple(r[f] for f in fields): r["ratio_to_embedding"] for r in mine["rows"]}
    pairs = []
    for row in reference["rows"]:
        where = tuple(row[f] for f in fields)
        if where in ours:
            pairs.append({**dict(zip(fields, where, strict=True)), "mine": ours[where],
                          "reference": row["ratio_to_embedding"]})
    if not pairs:
        raise ValueError("the two data sets share no sweep, size, method and pass")
    return pairs


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true",
                   help="tiny sizes, short timings; writes to a temporary folder by default")
    p.add_argument("--output", type=Path,
                   help="JSON file to write (default: results/<device>.json)")
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    p.add_argument("--threads", type=int, default=1, help="torch intra-op threads (default 1)")
    p.add_argument("--clock", choices=sorted(CLOCKS), default=None,
                   help="thread: CPU time of this thread (default on cpu, needs --threads 1); "
                   "wall: wall-clock time (default on cuda)")
    p.add_argument("--min-run-time", type=float, default=None,
                   help="seconds per measurement (default 0.1, quick 0.002)")
    p.add_argument("--max-run-time", type=float, default=None,
                   help="cap on seconds per measurement of a slow call (default 3, quick 0.02)")
    p.add_argument("--max-vocab", type=int, default=None,
                   help="leave out vocabulary sizes above this (to fit a smaller machine)")
    p.add_argument("--note", default="", help="free text stored with the machine description")
    p.add_argument("--models", action="store_true",
                   help="run the model-scale sweep instead (GPT-2, Llama 3, a 256k vocabulary); "
                   "writes results/models/<device>.json")
    p.add_argument("--model-ids", type=int, default=None,
                   help="ids per batch in the model sweep (default 8192 on cuda, 32 on cpu)")
    p.add_argument("--max-gb", type=float, default=None,
                   help="model sweep: skip a configuration whose estimated memory is above this "
                   "(default 3 on cpu, 80%% of the GPU's memory on cuda)")
    p.add_argument("--compile-backend", default=None,
                   help="torch.compile backend of the model sweep (default inductor; quick: "
                   "eager, which compiles in about a second)")
    args = p.parse_args(argv)
    args.argv = argv
    if args.compile_backend is None:
        args.compile_backend = "eager" if args.quick else "inductor"
    if args.clock is None:
        args.clock = "wall" if args.device == "cuda" or args.threads > 1 else "thread"
    if args.clock == "thread" and (args.device == "cuda" or args.threads > 1):
        p.error("--clock thread measures one CPU thread: use it with --device cpu --threads 1")
    if args.min_run_time is None:
        args.min_run_time = 0.002 if args.quick else 0.1
    if args.max_run_time is None:
        args.max_run_time = 0.02 if args.quick else 1.0 if args.models else 3.0
    return args


def main(argv: list[str] | None = None) -> Path:
    """Run the sweep, write the JSON data set, and return the path written."""
    args = parse_args(argv)
    if args.quick and args.output is not None and args.output.resolve().is_relative_to(RESULTS_DIR):
        raise SystemExit("a --quick run must not write into results/ (committed data)")
    if args.device == "cuda" and args.output is None and not args.quick:
        raise SystemExit(
            "a CUDA run needs --output: results/cuda.json holds the H200's data set, which the "
            "benchmarks page checks; write yours elsewhere (e.g. --output my-gpu/cuda.json) and "
            "compare it with compare_ratios()"
        )
    started = time.perf_counter()
    machine = describe_machine(args)
    if args.models:
        return write_data_set(args, started, machine, *model_sweep(args))
    sweep = QUICK_SWEEP if args.quick else FULL_SWEEP
    if args.max_vocab is not None:
        sweep = {name: {**axes, "V": [v for v in axes["V"] if v <= args.max_vocab]}
                 for name, axes in sweep.items()}
    rows: list[dict] = []
    seen = set()
    for name, axes in sweep.items():
        for V in axes["V"]:
            for D in axes["D"]:
                for N in axes["N"]:
                    if (V, D, N) in seen:
                        continue
                    seen.add((V, D, N))
                    rows += bench_size(V, D, N, name, args)
    machine["load_average_end"] = list(os.getloadavg())
    data = {
        "schema": SCHEMA,
        "quick": args.quick,
        "command": shlex.join(["python", "snippets/benchmarks/lookup_vs_onehot.py",
                               *(sys.argv[1:] if argv is None else argv)]),
        "date": dt.date.today().isoformat(),
        "wall_s": round(time.perf_counter() - started, 1),
        "machine": machine,
        "settings": {"dtype": "float32", "index_dtype": "int64", "seed": 0, "clock": args.clock,
                     "min_run_time_s": args.min_run_time, "max_run_time_s": args.max_run_time,
                     "sweep": sweep},
        "rows": rows,
    }
    return save(data, args, RESULTS_DIR, load_results)


def write_data_set(args: argparse.Namespace, started: float, machine: dict, settings: dict,
                   rows: list[dict], skipped: list[dict]) -> Path:
    """Write the model-scale data set (layout :data:`MODEL_SCHEMA`); return the path."""
    machine["load_average_end"] = list(os.getloadavg())
    data = {
        "schema": MODEL_SCHEMA,
        "quick": args.quick,
        "measured_by": "snippets/benchmarks/lookup_vs_onehot.py --models",
        "command": shlex.join(["python", "snippets/benchmarks/lookup_vs_onehot.py",
                               *(sys.argv[1:] if args.argv is None else args.argv)]),
        "date": dt.date.today().isoformat(),
        "wall_s": round(time.perf_counter() - started, 1),
        "machine": machine,
        "settings": settings,
        "rows": rows,
        "skipped": skipped,
    }
    return save(data, args, MODELS_DIR, load_model_results)


def save(data: dict, args: argparse.Namespace, directory: Path,
         loader: Callable[..., list[dict]]) -> Path:
    """Write ``data`` as JSON to ``--output``, or ``directory/<device>.json``; a quick run writes
    to a temporary folder, reads it back with ``loader`` and keeps nothing. Returns the path."""
    rows = data["rows"]
    text = json.dumps(data, indent=1) + "\n"
    if args.output is not None:
        out = args.output
    elif args.quick:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / f"{args.device}.json"
            out.write_text(text, encoding="utf-8")
            (loaded,) = loader(Path(tmp), allow_quick=True)
            assert loaded["rows"] == rows and loaded["machine"] == data["machine"]
        print(f"quick run: {len(rows)} rows checked, nothing kept ({data['wall_s']} s)")
        return out
    else:
        out = directory / f"{args.device}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    print(f"wrote {len(rows)} rows to {out} ({data['wall_s']} s)")
    return out


if __name__ == "__main__":
    main()
