"""Figures for the page "Benchmarks", drawn from the committed data sets at build time.

Every ``snippets/benchmarks/results/*.json`` written by ``snippets/benchmarks/lookup_vs_onehot.py``
is drawn; a second data set (a GPU run, another machine) appears without code changes. Nothing
here is typed in: times are the medians stored in the data (seconds per call).
"""

from __future__ import annotations

import math

from matplotlib.figure import Figure

from snippets.benchmarks.lookup_vs_onehot import FORWARD, TRAIN, load_results
from snippets.figure_style import Theme, new_figure

__all__ = ["bench_time_vs_vocab", "bench_ratio_vs_vocab"]


def vocab_series(data: dict, pass_: str, method: str) -> tuple[list[int], list[float]]:
    """Vocabulary sizes and median seconds of ``method`` in the vocabulary sweep of ``data``.

    Returns two equal-length lists sorted by V; both empty if the data set lacks the method.
    """
    rows = sorted(
        (r for r in data["rows"]
         if r["sweep"] == "vocab" and r["pass"] == pass_ and r["method"] == method),
        key=lambda r: r["V"],
    )
    return [r["V"] for r in rows], [r["median_s"] for r in rows]


def dataset_title(data: dict) -> str:
    """A short name for a data set: device, CPU or GPU model, torch threads."""
    m = data["machine"]
    where = m.get("gpu") or m["cpu_model"]
    return f"{m['device']}: {where}, {m['torch_threads']} torch thread(s)"


def _style_axes(ax, theme: Theme) -> None:
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.tick_params(colors=theme.fg, which="both", labelsize=9)
    for spine in ax.spines.values():
        spine.set_color(theme.muted)
    ax.grid(True, which="major", color=theme.muted, alpha=0.25, linewidth=0.6)


def bench_time_vs_vocab(theme: Theme) -> Figure:
    """Median time per call (s, log) against num_embeddings V (log), forward and forward+backward.

    One row of two panels per data set in ``snippets/benchmarks/results/``; N and D are the base
    sizes of the vocabulary sweep stored in the data. Raises ``ValueError`` if there is no data.
    """
    sets = load_results()
    if not sets:
        raise ValueError("no data set in snippets/benchmarks/results/")
    lines = [  # (method, label, colour, linestyle, marker)
        ("embedding", "F.embedding", theme.accent, "-", "o"),
        ("embedding_sparse", "F.embedding, sparse=True", theme.accent, "--", "o"),
        ("onehot_inside", "one_hot(idx).float() @ W", theme.second, "-", "s"),
        ("linear_onehot", "nn.Linear on prebuilt one-hot", theme.second, ":", "s"),
        ("sparse_csr", "torch CSR @ W", theme.fg, "-.", "^"),
        ("scipy_csr", "SciPy CSR @ W", theme.muted, "-", "v"),
        ("copy", "copy of the output", theme.muted, "--", None),
    ]
    fig = new_figure(theme, 8.6, 3.4 * len(sets) + 0.4)
    axes = fig.subplots(len(sets), 2, squeeze=False, sharey="row")
    for data, row in zip(sets, axes, strict=True):
        base = data["settings"]["sweep"]["vocab"]
        for ax, pass_ in zip(row, (FORWARD, TRAIN), strict=True):
            for method, label, colour, ls, marker in lines:
                vs, ts = vocab_series(data, pass_, method)
                if vs:
                    ax.plot(vs, ts, color=colour, linestyle=ls, marker=marker, markersize=4,
                            linewidth=1.5, label=label)
            _style_axes(ax, theme)
            ax.set_title(f"{pass_}  (N={base['N'][0]}, D={base['D'][0]})", color=theme.fg,
                         fontsize=10)
            ax.set_xlabel("num_embeddings V", color=theme.fg, fontsize=9)
        row[0].set_ylabel(f"seconds per call\n{dataset_title(data)}", color=theme.fg, fontsize=8)
    handles, labels = {}, {}
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(lab, h)
            labels[lab] = lab
    fig.legend(list(handles.values()), list(labels), loc="outside lower center", ncols=4,
               frameon=False, fontsize=8, labelcolor=theme.fg)
    return fig


def fit_slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of log(ys) against log(xs): the exponent k in y ~ x**k.

    Raises ``ValueError`` with fewer than two points.
    """
    if len(xs) < 2:
        raise ValueError("need two points for a slope")
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly, strict=True)) / sum(
        (a - mx) ** 2 for a in lx
    )


def bench_ratio_vs_vocab(theme: Theme) -> Figure:
    """Time of the one-hot product over time of the lookup, against num_embeddings V (log-log).

    Three ratios per data set, all medians from one run: forward (one-hot built in the timing,
    over ``F.embedding``), forward+backward over ``F.embedding`` with its default dense gradient,
    and forward+backward over ``F.embedding(..., sparse=True)``. A dotted line of slope 1 through
    the first forward point shows what "linear in V" looks like. Raises ``ValueError`` if there is
    no data.
    """
    sets = load_results()
    if not sets:
        raise ValueError("no data set in snippets/benchmarks/results/")
    markers = "osD^v"
    fig = new_figure(theme, 6.4, 3.9)
    ax = fig.add_subplot()
    for k, data in enumerate(sets):
        tag = data["machine"]["device"] if len(sets) > 1 else ""
        series = [  # (numerator pass, denominator method, label, colour, linestyle)
            (FORWARD, "embedding", "forward", theme.accent, "-"),
            (TRAIN, "embedding", "fwd+bwd, dense gradient", theme.second, "-"),
            (TRAIN, "embedding_sparse", "fwd+bwd vs sparse=True", theme.second, "--"),
        ]
        for pass_, denom, label, colour, ls in series:
            vs, num = vocab_series(data, pass_, "onehot_inside")
            _, den = vocab_series(data, pass_, denom)
            if not vs or len(den) != len(vs):
                continue
            ratios = [a / b for a, b in zip(num, den, strict=True)]
            slope = fit_slope(vs, ratios)
            ax.plot(vs, ratios, color=colour, linestyle=ls, marker=markers[k % len(markers)],
                    markersize=4, linewidth=1.6,
                    label=f"{tag} {label} (slope {slope:.2f})".strip())
            if pass_ == FORWARD:
                ax.plot([vs[0], vs[-1]], [ratios[0], ratios[0] * vs[-1] / vs[0]],
                        color=theme.muted, linestyle=":", linewidth=1.2,
                        label="slope 1 (linear in V)" if k == 0 else None)
    _style_axes(ax, theme)
    ax.set_xlabel("num_embeddings V", color=theme.fg, fontsize=9)
    ax.set_ylabel("one-hot time / lookup time", color=theme.fg, fontsize=9)
    ax.legend(frameon=False, fontsize=8, labelcolor=theme.fg, loc="upper left")
    return fig
