"""Re-execute lessons in place and clean them for committing (``make nb-exec``).

Each notebook runs top to bottom in a fresh ``python3`` kernel from the current
environment, with the notebook's folder as working directory.  Outputs and
execution counts are kept (strict nbval compares against them); widget state,
per-cell execution timings and other volatile metadata are dropped, stream
outputs merged and widget views dropped (see ``drop_widget_views``), so that a
re-run of an unchanged lesson gives an unchanged file.

    python scripts/nb_exec.py notebooks/01_*.ipynb [--timeout 300] [--force]

It rewrites each file whole, so it refuses a lesson with changes that are not
committed: they could neither be told apart from the re-execution in review nor
got back; ``--force`` runs anyway.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import nbformat
from nbclient import NotebookClient

KEEP_NB_METADATA = ("kernelspec", "language_info")


def merge_streams(outputs: list) -> list:
    """Join consecutive stdout (or stderr) chunks: how the kernel splits a cell's
    printing into messages varies from run to run, the text does not."""
    merged = []
    for out in outputs:
        prev = merged[-1] if merged else None
        if (
            prev is not None
            and out.get("output_type") == "stream"
            and prev.get("output_type") == "stream"
            and prev.get("name") == out.get("name")
        ):
            prev["text"] = prev["text"] + out["text"]
        else:
            merged.append(out)
    return merged


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def drop_widget_views(nb) -> None:
    """Keep a widget's text form, not its view.

    Widget state is not saved in the file, so a saved view points at a model
    that no longer exists: JupyterLab shows "Error displaying widget: model not
    found" where a student opening the lesson expects the output.  The forms
    beside it show instead (a stepper's standalone player, ``text/html``, and its
    one-line summary), and running the cell brings the live widget back.  (nbval
    ignores widget views when comparing.)  In a cell whose output nbval ignores, a widget output is
    dropped whole.
    """
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if "NBVAL_IGNORE_OUTPUT" in cell.source:
            # A live display such as a progress bar: its text form is only its first
            # frame ("0/36"), so show none (nbval does not compare this cell anyway).
            cell.outputs = [o for o in cell.outputs if WIDGET_VIEW not in o.get("data", {})]
        for out in cell.outputs:
            out.get("data", {}).pop(WIDGET_VIEW, None)


def clean(nb) -> None:
    nb.metadata = {k: v for k, v in nb.metadata.items() if k in KEEP_NB_METADATA}
    nb.metadata["kernelspec"] = {
        "display_name": "Python 3",
        "language": "python",
        "name": "python3",
    }
    nb.metadata.get("language_info", {}).pop("version", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        cell.metadata.pop("collapsed", None)
        cell.metadata.pop("scrolled", None)
        if "id" in cell:
            del cell["id"]
        if cell.cell_type == "code":
            cell.outputs = merge_streams(cell.outputs)
    drop_widget_views(nb)
    nb.nbformat, nb.nbformat_minor = 4, 4


def run(path: str, timeout: int) -> float:
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": os.path.dirname(os.path.abspath(path))}},
    )
    client.execute()
    clean(nb)
    nbformat.write(nb, path)
    return time.perf_counter() - start


def uncommitted(paths: list[str]) -> list[str]:
    """The paths among ``paths`` that git reports as changed, staged, or not tracked.

    Raises ``RuntimeError`` when git cannot tell (no git, or not a checkout)."""
    if not paths:
        return []
    folder = os.path.dirname(os.path.abspath(paths[0]))
    try:
        out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "--",
                              *[os.path.abspath(p) for p in paths]],
                             cwd=folder, capture_output=True, text=True, check=True)
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=folder,
                             capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, "stderr", "") or str(exc)
        raise RuntimeError(f"git cannot tell whether the lessons have uncommitted changes "
                           f"({detail.strip()})") from None
    changed = {os.path.realpath(os.path.join(top, line[3:].split(" -> ")[-1].strip('"')))
               for line in out.stdout.splitlines() if line.strip()}  # "XY path", "R  a -> b"
    return [p for p in paths if os.path.realpath(p) in changed]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("notebooks", nargs="+")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--force", action="store_true",
                    help="run even on lessons with uncommitted changes (they are replaced)")
    args = ap.parse_args(argv)
    if not args.force:
        try:
            dirty = uncommitted(args.notebooks)
        except RuntimeError as exc:
            print(f"nb_exec: {exc}; pass --force to run anyway", file=sys.stderr)
            return 2
        if dirty:
            print("nb_exec: refusing to re-execute lessons with uncommitted changes (the run "
                  "would replace them):\n  " + "\n  ".join(dirty) + "\ncommit or stash them "
                  "first, or pass --force", file=sys.stderr)
            return 1
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    for path in args.notebooks:
        seconds = run(path, args.timeout)
        print(f"executed {path} in {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
