"""``python -m exercises ex04``: check your answer from any terminal.

The same command works at the repository root and in a terminal opened in JupyterLab
(in the workspace or wherever it starts), with no ``pytest`` on the PATH and no path to type:
``python -m`` finds this package wherever the kit is installed (``make lab``'s venv, or
``PYTHONPATH``).  It checks *your* copy: the workspace's ``exercises/exNN_*.py`` when
there is one (``make lab`` makes it), else the course's stub; the first line says which
file it read.  The checks and their messages are those of ``check("ex04")`` in a notebook.

    python -m exercises ex04            # one exercise (also: 4, ex04_exp_pow)
    python -m exercises ex02 ex03       # several
    python -m exercises                 # all of them
    python -m exercises ex04 --solutions

Exit status 0 when nothing failed (untouched tasks are "not attempted yet", not
failures), 1 when a task failed or its file does not import, 2 for a bad argument.
"""

from __future__ import annotations

import argparse
import sys

from . import _runner
from ._catalog import EXERCISES, find


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m exercises",
        description="Check exercises: your workspace copy (made by make lab) when there is "
                    "one, else the course's stub.")
    ap.add_argument("exercises", nargs="*", metavar="EXERCISE",
                    help="ex04, 4 or ex04_exp_pow (default: all)")
    ap.add_argument("--solutions", action="store_true",
                    help="check the reference solutions instead")
    args = ap.parse_args(argv)
    try:
        chosen = [find(int(name) if name.isdigit() else name) for name in args.exercises] \
            or list(EXERCISES)
    except KeyError as exc:
        ap.error(exc.args[0])
    failed = False
    for i, ex in enumerate(chosen):
        if args.solutions:
            where, path = "the reference solution", None
        else:
            path = _runner.your_file(ex)
            where = f"your workspace copy {_runner.shown(path)}"
            if path == _runner.COURSE / f"{ex.module}.py":
                where = (f"the course's stub {_runner.shown(path)} (you have no workspace "
                         f"copy: make lab makes one)")
        outcomes = _runner.run(ex, solutions=args.solutions, path=path)
        print(("\n" if i else "") + f"checking {where}")
        print(_runner.report(outcomes))
        failed |= any(o.status in (_runner.FAILED, _runner.ERROR) for o in outcomes)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
