"""Run several per-rank programs in one ``torchrun`` launch (one rank of it).

``tests/test_sharded_programs.py`` starts it as
``python -m torch.distributed.run --standalone --nproc_per_node K tests/sharded_driver.py JSON``,
where ``JSON`` is a list of ``[path, arg, ...]``. Starting ``K`` Python processes that import
torch and DTensor costs seconds; one launch serves every program of a world size. The driver
starts the gloo process group once; then it runs each program as ``__main__`` with its arguments
(the programs see the group already started and leave it alone) and, on rank 0, prints
``==> path`` before each program's output.
"""

from __future__ import annotations

import json
import os
import runpy
import sys

import torch.distributed as dist


def main() -> None:
    programs = json.loads(sys.argv[1])
    dist.init_process_group("gloo")
    try:
        for path, *args in programs:
            if dist.get_rank() == 0:
                print(f"==> {path}", flush=True)
            sys.argv = [path, *args]
            runpy.run_path(path, run_name="__main__")
            sys.stdout.flush()
            dist.barrier()
    finally:
        dist.destroy_process_group()
    # Skip the interpreter's teardown, as run_on_ranks' ranks do: gloo's threads met C++ static
    # destructors there and aborted a rank ("terminate called without an active exception")
    # after every program had passed, about one launch in five with other launches running.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
