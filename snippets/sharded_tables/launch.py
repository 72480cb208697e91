"""Run one program on k processes joined by a gloo process group; print every rank's output.

``run_on_ranks(k, program)`` is what each distributed block on the "One table across processes"
page calls. ``program(rank, world_size)`` runs once in each of ``k`` processes, after
``torch.distributed.init_process_group("gloo", ...)`` and before ``destroy_process_group()``;
what each rank prints comes back to the caller and is printed there, rank by rank, each line
prefixed ``rank r: ``.

How it is built, and why:

- **Fork, not spawn.** The ranks are forked from the caller (``multiprocessing``'s ``fork``
  context, Linux and macOS), so ``program`` can be a function defined in a page's block or a
  notebook cell: nothing is pickled, and what the caller imported, each rank has. A launch costs
  a fraction of a second, not a fresh interpreter per rank. The launcher imports TorchDynamo
  first, which DTensor's first call would otherwise import in every rank. Each rank sets one
  intra-op thread, as PyTorch's DataLoader workers do after a fork
  (``torch/utils/data/_utils/worker.py``).
- **No fixed port.** The caller opens a listening socket on port 0, so the operating system picks
  a free port; rank 0 serves a ``torch.distributed.TCPStore`` on that very socket
  (``master_listen_fd``, a public argument) and the other ranks connect to it; they rendezvous
  through it (``init_process_group(store=...)``, a public argument). Two launches at once
  (pytest-xdist workers) never meet. The caller itself runs no store: a store's server thread
  in the caller, busy with the first ranks while the next ones were forked, left the ranks
  hanging in ``init_process_group`` (3 of 12 runs of the page's blocks, two runs at once; 0 of
  12 since), as a lock held by a thread is copied held into a forked child.
- **A failing rank fails the launch with its traceback.** A rank that raises writes its traceback
  to a file; the caller stops the other ranks and raises :class:`RankFailed` with the earliest
  failure's text (its peers fail after it, on a closed connection).
- **A hang ends.** After ``timeout`` seconds (60 by default) the caller asks every rank for its
  Python stack (SIGUSR1, ``faulthandler``), kills them and raises :class:`RanksTimedOut` naming
  the block: under pytest, the test id from the ``PYTEST_CURRENT_TEST`` variable pytest sets (a
  page's block is ``docs/<page>.md::line N``); elsewhere, the caller's file and line. The process
  group's own timeout is 30 s longer, so the caller's message, not a rank's, reports a hang.
- **No process left behind.** Every rank is joined or killed before ``run_on_ranks`` returns or
  raises; a rank whose parent dies (killed by pytest-timeout, say) exits within a second.
"""

from __future__ import annotations

import datetime
import faulthandler
import io
import multiprocessing
import multiprocessing.connection
import os
import signal
import socket
import sys
import tempfile
import threading
import time
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path

import torch
import torch.distributed as dist

__all__ = ["RankFailed", "RanksTimedOut", "block_name", "run_on_ranks"]


class RankFailed(RuntimeError):
    """A rank raised: the message holds that rank's traceback."""


class RanksTimedOut(TimeoutError):
    """The ranks did not finish within the timeout: the message names the block."""


def block_name(depth: int = 2) -> str:
    """Where the launch was called from: pytest's current test id, else the caller's file and line.

    Under pytest, ``PYTEST_CURRENT_TEST`` is ``"<node id> (call)"`` (pytest's documented
    environment variable); a block on a page is ``docs/<page>.md::line N``, N its first line.
    """
    test = os.environ.get("PYTEST_CURRENT_TEST")
    if test:
        return test.rsplit(" (", 1)[0]
    frame = sys._getframe(depth)
    return f"{frame.f_code.co_filename}, line {frame.f_lineno}"


def _watch_parent(parent: int) -> None:
    # The ranks are daemon processes, so a parent that exits normally ends them; a parent that is
    # killed cannot, so each rank checks once a second that its parent is still the same process.
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(3)


def _rank_main(
    program: Callable[[int, int], None],
    rank: int,
    world_size: int,
    listen_fd: int,
    port: int,
    timeout: float,
    folder: str,
    parent: int,
    backend: str,
) -> None:
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    # On a hang the caller sends SIGUSR1 before it kills the ranks: each writes where it is.
    stacks = open(Path(folder, f"stack{rank}"), "w")  # noqa: SIM115 (open until os._exit)
    faulthandler.register(signal.SIGUSR1, file=stacks, all_threads=False)
    torch.set_num_threads(1)
    out = io.StringIO()
    sys.stdout = out
    code = 0
    try:
        # The process group waits longer than the caller, so a hang ends in the caller's message.
        wait = datetime.timedelta(seconds=timeout + 30)
        if rank == 0:  # serves the store on the socket the caller opened (the port it was given)
            store = dist.TCPStore("127.0.0.1", port, world_size, is_master=True, timeout=wait,
                                  wait_for_workers=False, master_listen_fd=listen_fd)
        else:
            os.close(listen_fd)
            store = dist.TCPStore("127.0.0.1", port, world_size, is_master=False, timeout=wait)
        if backend == "nccl":
            torch.cuda.set_device(rank)  # one GPU per rank, before the group
        dist.init_process_group(backend, store=store, rank=rank, world_size=world_size,
                                timeout=wait)
        program(rank, world_size)
    except BaseException:
        # The time first, taken before anything else can fail: when one rank fails, its peers
        # fail after it (a closed connection), and the caller reports the earliest failure.
        Path(folder, f"error{rank}").write_text(f"{time.time()!r}\n{traceback.format_exc()}")
        code = 1
    finally:
        sys.stdout = sys.__stdout__
        Path(folder, f"out{rank}").write_text(out.getvalue())
    if code == 0:
        dist.destroy_process_group()
    # os._exit: skip the forked copy of the caller's atexit hooks (pytest's, a notebook kernel's).
    os._exit(code)


def _stacks(folder: str, running: dict[int, multiprocessing.Process]) -> str:
    # Each running rank dumps its Python stack (faulthandler, registered in _rank_main).
    for process in running.values():
        os.kill(process.pid, signal.SIGUSR1)
    time.sleep(0.5)
    return "".join(f"rank {r}:\n{Path(folder, f'stack{r}').read_text()}" for r in running)


def run_on_ranks(
    world_size: int,
    program: Callable[[int, int], None],
    *,
    timeout: float = 60.0,
    name: str | None = None,
    backend: str = "gloo",
) -> None:
    """Run ``program(rank, world_size)`` on ``world_size`` gloo processes; print their output.

    ``world_size``: number of ranks, at least 1. ``program``: a function of ``(rank: int,
    world_size: int)``, called in each rank with the default process group initialised (backend
    gloo, CPU tensors). ``timeout``: seconds for the whole launch, and the process group's timeout.
    ``name``: how errors name the caller (default: :func:`block_name`). ``backend``: ``"gloo"``,
    or ``"nccl"`` for one CUDA GPU per rank: rank ``r`` calls ``torch.cuda.set_device(r)`` before
    it joins the group, so it needs ``world_size`` GPUs.

    Prints each rank's standard output, rank 0 first, every line prefixed ``rank r: ``.
    Raises :class:`RankFailed` (the first failing rank's traceback) when a rank raises, and
    :class:`RanksTimedOut` (naming the block) when the ranks are not done within ``timeout``;
    ``ValueError`` for a ``world_size`` under 1; ``RuntimeError`` for ``backend="nccl"`` when the
    caller has initialised CUDA (a forked rank could not use it). Every rank has ended when it
    returns or raises.
    """
    if world_size < 1:
        raise ValueError(f"world_size must be at least 1, got {world_size}")
    if backend == "nccl" and torch.cuda.is_initialized():
        # A forked child cannot use a CUDA context its parent made (PyTorch raises "Cannot
        # re-initialize CUDA in forked subprocess"): the caller must leave CUDA to the ranks.
        raise RuntimeError("run_on_ranks(backend='nccl'): CUDA was initialised in the caller")
    name = name or block_name()
    # DTensor's first call in a process imports TorchDynamo (torch/_compile.py, through
    # torch.compiler.disable): seconds of CPU. Done once here, every forked rank inherits it.
    torch.compiler.disable(_watch_parent)
    context = multiprocessing.get_context("fork")
    listener = socket.create_server(("127.0.0.1", 0))  # bound and listening: the OS picks a port
    port = listener.getsockname()[1]
    with tempfile.TemporaryDirectory(prefix="ranks-") as folder:
        ranks = [
            context.Process(
                target=_rank_main,
                args=(program, r, world_size, listener.fileno(), port, timeout, folder,
                      os.getpid(), backend),
                daemon=True,
            )
            for r in range(world_size)
        ]
        with warnings.catch_warnings():
            # Python 3.12+ warns that fork() copies a process that has threads; see the module's
            # docstring for why the ranks only need what they run themselves.
            warnings.simplefilter("ignore", DeprecationWarning)
            for process in ranks:
                process.start()
        listener.close()  # rank 0 holds its own copy of the socket
        deadline = time.monotonic() + timeout
        failed = None
        try:
            waiting = {process.sentinel: r for r, process in enumerate(ranks)}
            while waiting and failed is None:
                left = deadline - time.monotonic()
                ready = multiprocessing.connection.wait(list(waiting), timeout=max(left, 0))
                if not ready:
                    raise RanksTimedOut(
                        f"{name}: ranks {sorted(waiting.values())} of {world_size} still running "
                        f"after {timeout:g} s (a collective that not every rank joined?); "
                        "every rank was killed. Where each was:\n"
                        + _stacks(folder, {r: ranks[r] for r in sorted(waiting.values())})
                    )
                for sentinel in ready:
                    r = waiting.pop(sentinel)
                    ranks[r].join()
                    if ranks[r].exitcode != 0:
                        failed = r
                        break
        finally:
            for process in ranks:
                if process.is_alive():
                    process.kill()
                process.join()
        if failed is not None:
            errors = sorted(
                (float(when), r, text)
                for r in range(world_size)
                if (error := Path(folder, f"error{r}")).exists()
                for when, text in [error.read_text().split("\n", 1)]
            )
            if errors:
                _, failed, text = errors[0]
            else:
                text = f"exit code {ranks[failed].exitcode}\n"
            raise RankFailed(f"{name}: rank {failed} of {world_size} failed:\n{text}")
        for r in range(world_size):
            for line in Path(folder, f"out{r}").read_text().splitlines():
                print(f"rank {r}: {line}")


def under_torchrun(run: Callable[[], None]) -> None:
    """Run one rank's work, ``run()``, as a program started by ``torchrun``: start the gloo process
    group from torchrun's variables (``RANK``, ``WORLD_SIZE``, ``MASTER_ADDR``, ``MASTER_PORT``)
    unless a launcher already started one (``run_on_ranks``, or a driver running several programs
    in one launch), and destroy it afterwards only if it started it. Raises what ``run`` raises.

    A program that started its own group ends here once ``run()`` has passed: its output flushed,
    ``os._exit(0)`` skips the interpreter's teardown. Gloo's threads can abort a finished rank as
    Python exits ("terminate called without an active exception", pytorch#190489): 3 of 10
    ``torchrun`` launches on this project's 2-core machine beside the suite, 0 of 10 with the
    early exit."""
    own_group = not dist.is_initialized()
    if own_group:
        dist.init_process_group("gloo")
    try:
        run()
    finally:
        if own_group:
            dist.destroy_process_group()
    if own_group:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def main() -> None:
    """Two ranks add their rank numbers with an all-reduce; each prints the sum."""

    def add_ranks(rank: int, world_size: int) -> None:
        total = torch.tensor([rank])
        dist.all_reduce(total)
        assert total.item() == world_size * (world_size - 1) // 2
        print(f"sum of ranks {total.item()}")

    run_on_ranks(2, add_ranks)


if __name__ == "__main__":
    main()
