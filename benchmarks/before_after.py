"""Before and after: the speed targets measured on an old commit and on today's code, in one run.

    python benchmarks/before_after.py --baseline REV [--after REV] [--repeats 3] [--quick]

"No speed lost" is a claim about two trees, and on a shared 2-core machine two
separate runs do not compare: a neighbour can make everything twice as slow for
seconds at a time, and figures from this morning's run and this afternoon's say
more about the neighbours than about the code.  So this script measures both
trees in ONE run:

* it checks ``REV`` out into a temporary detached ``git worktree`` (removed at the
  end, also on an error or Ctrl-C) and runs each tree's own benchmark workers
  (``benchmarks/<script>.py --worker ...``) with the same Python, each importing
  its own minigrad (the scripts put their tree first on ``sys.path``; checked);
* it alternates the trees, worker by worker, and reverses the order every other
  repeat, so that neither tree always runs first or always follows the other;
* it reports ratios, never seconds: minigrad against a reference timed in the same
  run (the lean floor engine, hand-written numpy).  Where a ``paired`` worker
  exists (the MLP at one BLAS thread, the tiny chains) both sides of a ratio ran
  in one process within milliseconds of each other, so a slow phase of the machine
  slows both and cancels (see ``_common.py``).  The scalar step and the MLP at two
  BLAS threads run each implementation in its own process (the collector's cost
  and the BLAS threads' busy-waiting are per process), and their ratio is that of
  the medians over the repeats, as in ``scalar.py`` and ``mlp.py``: those two rows
  are the noisy ones, and the script says so when the reference's runs disagree
  (the reference, the lean floor or numpy, is the same code in both trees).  Two
  BLAS threads on a 2-core machine with one busy neighbour are the worst case: a
  thread waits for its descheduled twin, and a whole process can run 50x slower.

"After" is the working tree as it is (uncommitted edits included, and named so in
the table), or ``--after REV`` for a second temporary worktree: on a checkout that
others edit while it runs, the working tree can change between two workers (the
script says so at the end when the measured files changed), and HEAD cannot.

The rows and their targets (issue #27: "no speed lost"): the scalar step <= 2.0x
the lean floor with Python's cyclic collector on and <= 1.3x with it off; the MLP
step <= 1.10x hand-written numpy at 1 and at 2 BLAS threads; the tiny chains
<= 2.5x numpy.  ``--quick`` uses small sizes (a minute with three repeats, 20 s
with one); without it three repeats take about five minutes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import (  # noqa: E402
    ONE_THREAD,
    THREAD_VARS,
    at_least,
    load_average,
    machine_line,
    median,
    spread_mark,
)

ROOT = Path(__file__).resolve().parents[1]
TWO_THREADS = {var: "2" for var in THREAD_VARS}

# What each worker script must offer, as text found in it (checked before anything
# runs, in both trees): a baseline older than these modes cannot be compared this way.
NEEDS = {
    "scalar.py": ("--worker", "--no-gc", '"step"'),
    "mlp.py": ("--worker", '"paired"', '"robust"', "--samples"),
    "tensor_ops.py": ("--worker", '"paired"', '"tiny"', "--reps"),
}
# The line with which a worker script puts its own tree first on sys.path.
OWN_TREE_FIRST = re.compile(
    r"sys\.path\.insert\(\s*0\s*,\s*os\.path\.dirname\(\s*os\.path\.dirname\(\s*"
    r"os\.path\.abspath\(\s*__file__\s*\)\s*\)\s*\)\s*\)")
# The files the measurements depend on (for "after has uncommitted changes").
MEASURED = ("minigrad", "benchmarks/_common.py", "benchmarks/_lean_scalar.py",
            "benchmarks/_lean_tensor.py", *(f"benchmarks/{s}" for s in NEEDS))

# sizes: (scalar steps, MLP paired samples -> max(60, n // 1000) blocks of 5 steps,
#         MLP 2-thread samples -> n // 128 steps, tiny-chain paired blocks of 10 calls)
SIZES = {"full": (30, 150_000, 25_600, 200), "quick": (4, 1_280, 3_840, 40)}


class Refused(Exception):
    """A clear reason not to run (bad baseline, missing worker modes)."""


@dataclass
class Tree:
    label: str  # "before" or "after"
    name: str  # what the table calls it: a short commit id
    path: Path
    env: dict = field(default_factory=dict)  # PYTHONPATH, when its scripts need it


@dataclass
class Measurement:
    """One worker set-up timed on both trees.  ``kind`` "separate": one process per
    implementation, the row is median(num) / median(den) over the repeats of ``key``;
    "paired": one process timing all in turn, each row reads (median, q1, q3) from it."""

    script: str
    kind: str
    impls: tuple
    args: list
    env: dict
    rows: dict  # separate: {label: (num, den, key)}; paired: {label: (path into the result)}
    targets: dict
    unit: str = ""  # separate: a result's count that ``key`` is per (shown as ms per unit)


def git(*args, cwd=ROOT, check=True) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed:\n{proc.stderr.strip()}")
    return proc.stdout.strip() if proc.returncode == 0 else ""


def resolve(rev: str, flag: str = "--baseline") -> str:
    sha = git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", check=False)
    if not sha:
        raise Refused(f"{flag} {rev!r} is not a commit in {ROOT} "
                      "(try a hash, a tag or HEAD~N)")
    return sha


def check_scripts(read, where: str) -> None:
    """Refuse when a worker script lacks a mode this comparison needs.  ``read(name)``
    returns benchmarks/<name>'s text, or None when the file does not exist."""
    missing = []
    for script, needs in NEEDS.items():
        text = read(script)
        if text is None:
            missing.append(f"benchmarks/{script} does not exist")
            continue
        lacking = [n for n in needs if n not in text]
        if lacking:
            missing.append(f"benchmarks/{script} lacks {', '.join(lacking)}")
    if missing:
        raise Refused(f"{where} lacks the worker modes this comparison needs: "
                      + "; ".join(missing))


def own_tree_env(tree: Path) -> dict:
    """The environment under which every worker script of ``tree`` imports the tree's own
    minigrad: nothing when the scripts put their tree first on sys.path, else PYTHONPATH.
    Checked by importing minigrad the way the workers will."""
    first = all(OWN_TREE_FIRST.search((tree / "benchmarks" / s).read_text()) for s in NEEDS)
    env = {}
    if not first:
        env["PYTHONPATH"] = os.pathsep.join(
            [str(tree), *filter(None, [os.environ.get("PYTHONPATH")])])
    probe = ("import os, sys\n"
             f"{'sys.path.insert(0, sys.argv[1])' if first else ''}\n"
             "import minigrad\n"
             "print(os.path.realpath(minigrad.__file__))\n")
    proc = subprocess.run([sys.executable, "-c", probe, str(tree)], capture_output=True,
                          text=True, env={**os.environ, **env}, cwd=tree)
    where = Path(proc.stdout.strip() or "?")
    if proc.returncode != 0 or Path(os.path.realpath(tree)) not in where.parents:
        raise Refused(f"the workers of {tree} would not import its own minigrad "
                      f"(they get {where}):\n{proc.stderr.strip()}")
    return env


def run_worker(tree: Tree, m: Measurement, impl: str) -> dict:
    cmd = [sys.executable, str(tree.path / "benchmarks" / m.script), "--worker", impl, *m.args]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tree.path,
                          env={**os.environ, **m.env, **tree.env})
    if proc.returncode != 0:
        raise RuntimeError(f"the {tree.label} tree's worker failed: {' '.join(cmd)}\n"
                           f"{proc.stderr.strip()}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def measurements(quick: bool) -> list[Measurement]:
    steps, mlp_paired, mlp_two, blocks = SIZES["quick" if quick else "full"]
    scalar = ["--steps", str(steps)]
    return [
        Measurement("scalar.py", "separate", ("minigrad", "lean"), scalar, ONE_THREAD,
                    {"scalar step, minigrad/lean, GC on": ("minigrad", "lean", "step")},
                    {"scalar step, minigrad/lean, GC on": "<= 2.0x"}),
        Measurement("scalar.py", "separate", ("minigrad", "lean"), [*scalar, "--no-gc"],
                    ONE_THREAD,
                    {"scalar step, minigrad/lean, GC off": ("minigrad", "lean", "step")},
                    {"scalar step, minigrad/lean, GC off": "<= 1.3x"}),
        Measurement("mlp.py", "paired", ("paired",),
                    ["--samples", str(mlp_paired), "--threads", "1"], ONE_THREAD,
                    {"MLP step, minigrad/numpy, 1 thread, paired": ("minigrad",)},
                    {"MLP step, minigrad/numpy, 1 thread, paired": "<= 1.10x"}),
        Measurement("mlp.py", "separate", ("numpy", "minigrad"),
                    ["--samples", str(mlp_two), "--threads", "2"], TWO_THREADS,
                    {"MLP step, minigrad/numpy, 2 threads": ("minigrad", "numpy", "robust")},
                    {"MLP step, minigrad/numpy, 2 threads": "<= 1.10x"}, unit="steps"),
        Measurement("tensor_ops.py", "paired", ("paired",),
                    ["--reps", str(blocks), "--which", "tiny"], ONE_THREAD,
                    {"tiny elementwise chain, minigrad/numpy": ("elementwise_chain", "minigrad"),
                     "tiny matmul chain, minigrad/numpy": ("matmul_chain", "minigrad")},
                    {"tiny elementwise chain, minigrad/numpy": "<= 2.5x",
                     "tiny matmul chain, minigrad/numpy": "<= 2.5x"}),
    ]


def measure(m: Measurement, trees: list[Tree], repeats: int) -> dict:
    """Run ``m`` ``repeats`` times on every tree, alternating trees (and implementations),
    every other repeat in reverse order.  Returns {row: {tree label: cell text}} and the
    per-repeat figures for the details."""
    runs = {t.label: {i: [] for i in m.impls} for t in trees}
    order = [(t, i) for t in trees for i in m.impls]
    for r in range(repeats):
        for tree, impl in (order if r % 2 == 0 else order[::-1]):
            runs[tree.label][impl].append(run_worker(tree, m, impl))
    table, details, busy = {}, {}, []
    for row, spec in m.rows.items():
        table[row], details[row] = {}, {}
        if m.kind == "separate":  # the reference is the same code in both trees
            num, den, key = spec
            mark = spread_mark(f"{row}: {den}", [x[key] / (x[m.unit] if m.unit else 1)
                                                  for t in trees for x in runs[t.label][den]])
            busy += [mark] if mark else []
        for t in trees:
            res = runs[t.label]
            if m.kind == "separate":
                nums = [x[key] / (x[m.unit] if m.unit else 1) for x in res[num]]
                dens = [x[key] / (x[m.unit] if m.unit else 1) for x in res[den]]
                ratio = median(nums) / median(dens)
                each = [a / b for a, b in zip(nums, dens)]
                spread = (f"runs {min(each):.2f}-{max(each):.2f}" if repeats > 1 else
                          f"{median(nums) * 1e3:.1f}/{median(dens) * 1e3:.1f} ms")
                table[row][t.label] = f"{ratio:.3f}x ({spread})"
                details[row][t.label] = each
            else:
                quads = []
                for result in res["paired"]:
                    for k in spec:
                        result = result[k]
                    quads.append(result[:3])
                ratio = median([q[0] for q in quads])
                q1 = median([q[1] for q in quads])
                q3 = median([q[2] for q in quads])
                table[row][t.label] = f"{ratio:.3f}x (q {q1:.2f}-{q3:.2f})"
                details[row][t.label] = [q[0] for q in quads]
    return {"table": table, "details": details, "busy": busy}


def print_table(trees: list[Tree], results: dict, targets: dict) -> None:
    before, after = trees
    head = ["measurement", f"before ({before.name})", f"after ({after.name})", "target"]
    rows = [[row, cells["before"], cells["after"], targets[row]]
            for row, cells in results.items()]
    widths = [max(len(r[k]) for r in [head, *rows]) for k in range(4)]

    def line(cells):
        return " | ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()

    print(line(head))
    print("-+-".join("-" * w for w in widths))
    for r in rows:
        print(line(r))


def make_worktree(sha: str) -> tuple[Path, Path]:
    tmp = Path(tempfile.mkdtemp(prefix="minigrad-before-after-"))
    path = tmp / "tree"
    try:
        git("worktree", "add", "--detach", str(path), sha)
    except BaseException:  # (a half-made worktree: prune forgets it)
        remove_worktree(tmp, path)
        raise
    return tmp, path


def remove_worktree(tmp: Path, path: Path) -> None:
    subprocess.run(["git", "worktree", "remove", "--force", str(path)], cwd=ROOT,
                   capture_output=True)
    if path.exists():  # (remove refused: delete it, and prune forgets it below)
        shutil.rmtree(path, ignore_errors=True)
    git("worktree", "prune", check=False)
    shutil.rmtree(tmp, ignore_errors=True)


def digest(tree: Path) -> str:
    """A fingerprint of the measured files of ``tree`` (to notice edits during the run)."""
    h = hashlib.sha1()
    for name in MEASURED:
        for f in sorted((tree / name).rglob("*.py")) if (tree / name).is_dir() else [tree / name]:
            h.update(str(f).encode())
            h.update(f.read_bytes() if f.exists() else b"-")
    return h.hexdigest()


def working_tree_name() -> str:
    head = git("rev-parse", "--short", "HEAD")
    dirty = git("status", "--porcelain", "--", *MEASURED, check=False)
    return f"{head} + edits" if dirty else head


def _terminate(signum, frame):  # SIGTERM as Ctrl-C: the worktrees are removed on the way out
    raise KeyboardInterrupt


def refuse(message: str) -> int:
    print(f"before_after.py: {message}", file=sys.stderr)
    return 2


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", required=True, metavar="REV",
                    help="the commit to compare against (the code before the change)")
    ap.add_argument("--after", metavar="REV",
                    help="a commit to measure as 'after' (default: the working tree as it is)")
    ap.add_argument("--repeats", type=at_least(1), default=3,
                    help="runs of every worker on each tree (default 3)")
    ap.add_argument("--quick", action="store_true", help="small sizes (the tests use it)")
    args = ap.parse_args(argv)
    revs = {"before": ("--baseline", args.baseline)}
    if args.after:
        revs["after"] = ("--after", args.after)
    shas = {}
    try:
        for label, (flag, rev) in revs.items():
            shas[label] = resolve(rev, flag)
            check_scripts(lambda s, sha=shas[label]: git("show", f"{sha}:benchmarks/{s}",
                                                         check=False) or None,
                          f"{flag} {rev!r} ({shas[label][:9]})")
        if not args.after:
            check_scripts(lambda s: (ROOT / "benchmarks" / s).read_text()
                          if (ROOT / "benchmarks" / s).exists() else None,
                          f"the working tree {ROOT}")
    except Refused as e:
        return refuse(str(e))
    signal.signal(signal.SIGTERM, _terminate)
    made = []  # (temporary dir, worktree path): removed in the finally clause
    try:
        trees = []
        for label in ("before", "after"):
            if label in shas:
                made.append(make_worktree(shas[label]))
                trees.append(Tree(label, git("rev-parse", "--short", shas[label]), made[-1][1]))
            else:
                trees.append(Tree(label, working_tree_name(), ROOT))
        for t in trees:
            t.env = own_tree_env(t.path)
        fingerprint = digest(ROOT)
        print(machine_line(1))
        for t in trees:
            if t.path == ROOT:
                what = f"the working tree {ROOT}"
            else:
                flag, rev = revs[t.label]
                subject = git("log", "-1", "--format=%s", shas[t.label])
                subject = subject if len(subject) <= 60 else subject[:57] + "..."
                what = f"{rev}: {subject}; in the temporary worktree {t.path}"
            print(f"{t.label:<6} = {t.name} ({what})")
        print(f"{args.repeats} repeat(s), {'--quick sizes' if args.quick else 'full sizes'}; "
              "trees alternate, every other repeat in reverse order", flush=True)
        results, targets, details, busy = {}, {}, {}, []
        for m in measurements(args.quick):
            print(f"  measuring: {'; '.join(m.rows)} ...", flush=True)
            out = measure(m, trees, args.repeats)
            results.update(out["table"])
            details.update(out["details"])
            busy += out["busy"]
            targets.update(m.targets)
        print()
        print_table(trees, results, targets)
        print()
        print("paired rows: median over the repeats of each run's median block ratio (q: "
              "the medians of the quartiles); the other rows: ratio of the medians over the "
              "repeats (runs: each repeat's ratio; with one repeat, the two times)")
        for mark in busy:
            print(mark)
        if args.repeats > 1:
            print("per-repeat ratios:")
            for row, per_tree in details.items():
                cells = "; ".join(f"{label} " + ", ".join(f"{v:.3f}" for v in vals)
                                  for label, vals in per_tree.items())
                print(f"  {row}: {cells}")
        if not args.after and digest(ROOT) != fingerprint:
            print(f"WARNING: the measured files of {ROOT} changed during the run: the after "
                  "column may mix two versions (--after HEAD measures a fixed tree)")
        elif not args.after and trees[1].name.endswith("+ edits"):
            print("note: 'after' includes uncommitted edits to minigrad/ or the benchmark "
                  "scripts (--after HEAD measures the last commit)")
        print(f"load average at the end: {load_average():.2f} ({os.cpu_count()} cores; "
              "above one per core, a neighbour took turns with these workers)")
    except Refused as e:
        return refuse(str(e))
    except RuntimeError as e:  # a worker (or git) failed: its own traceback says why
        print(f"before_after.py: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ninterrupted: removing the temporary worktree(s)", file=sys.stderr)
        return 130
    finally:
        for tmp, path in made:
            remove_worktree(tmp, path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
