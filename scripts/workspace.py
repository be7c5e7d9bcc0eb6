"""The student's own copy of the lessons and exercises (``make lab``).

The repository's ``notebooks/`` and ``exercises/exNN_*.py`` are the course's
pristine copy: the tests and nbval run on them, and ``git pull`` updates them.
A student works in ``workspace/`` (git-ignored), which ``sync`` makes from
them on the first ``make lab`` and brings up to date on every later one
without ever overwriting the student's work:

* a file the workspace lacks is copied in (a lesson added by the course, or
  one the student deleted to start it over);
* a file the student has not changed since it was copied follows the course
  (it is replaced by the course's new version);
* a lesson the student only opened or ran, not edited, follows the course too:
  JupyterLab rewrites a notebook's metadata (kernel display name, language_info,
  a widgets block) and its outputs as soon as it is opened and autosaved, but
  outputs are reproducible; a lesson is the student's own only when a cell's
  *source* (or the list of cells) differs from the course version it came from;
* a file the student changed (an exercise stub: any byte; a lesson: a cell's
  source), which the course changed too, is left alone: the course's new
  version is placed beside it as ``NAME (course update).EXT`` and reported,
  for the student to compare.

A manifest in the workspace records the hash of the course version each file
was copied from, and for a lesson the hash of its cells' sources: that is how
"the student edited it" is told apart from "the course changed it".
``exercises.check`` reads the manifest's presence to know that a notebook runs
inside a workspace.

    python scripts/workspace.py sync [--course .] [--workspace workspace]
    python scripts/workspace.py lab-settings    # JupyterLab settings for the kit
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ".minigrad-workspace.json"  # exercises/_runner.py looks for this name
UPDATE_TAG = " (course update)"
# What the course folders hold that is not for the student: test settings and caches.
NOT_COPIED = {"conftest.py", "sanitize.cfg", "__pycache__", ".ipynb_checkpoints"}
EXERCISE_SHIM = '''\
"""Kit file, rewritten by ``make lab``: lets ``pytest workspace/exercises/`` check
your copies here the way ``pytest exercises/`` checks the course's stubs."""

from exercises.conftest import *  # noqa: F401,F403
'''


def course_files(course: Path) -> dict[str, Path]:
    """``{path inside the workspace: course file}``: every lesson and data file in
    ``notebooks/`` (not its test settings) and every exercise stub ``exercises/exNN_*.py``
    (not the solutions or checks).  Lessons land at the workspace's top level, so a
    lesson's ``exercises/...`` and data paths mean the same there as in ``notebooks/``."""
    files = {}
    notebooks = course / "notebooks"
    for path in sorted(notebooks.rglob("*")):
        rel = path.relative_to(notebooks)
        if path.is_file() and not (set(rel.parts) & NOT_COPIED) and \
                not any(part.startswith(".") for part in rel.parts):
            files[rel.as_posix()] = path
    for path in sorted((course / "exercises").glob("ex[0-9][0-9]_*.py")):
        files[f"exercises/{path.name}"] = path
    return files


def file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def cells_hash(path: Path) -> str | None:
    """The hash of a notebook's cells as the student wrote them: each cell's type and
    source, in order, and nothing else (no metadata, outputs, execution counts or cell
    ids, which JupyterLab rewrites on opening and running).  ``None`` for a file that is
    not a notebook (not JSON, no cell list): it is then compared byte for byte."""
    if not path.name.endswith(".ipynb"):
        return None
    try:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        written = [[c.get("cell_type"), "".join(c["source"]) if isinstance(c["source"], list)
                    else c["source"]] for c in cells]
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None
    return hashlib.sha256(json.dumps(written).encode()).hexdigest()


def beside(rel: str) -> str:
    """Where a course update of ``rel`` goes: ``09_mlp (course update).ipynb``."""
    head, dot, ext = rel.rpartition(".")
    return f"{head}{UPDATE_TAG}.{ext}" if dot else rel + UPDATE_TAG


@dataclass
class Report:
    """What ``sync`` did, file by file (workspace-relative paths)."""

    copied: list[str] = field(default_factory=list)  # new in the workspace
    updated: list[str] = field(default_factory=list)  # untouched by the student: follows the course
    rerun: list[str] = field(default_factory=list)  # a lesson run, not edited: follows the course
    offered: list[str] = field(default_factory=list)  # edited by both: course version put beside
    kept: list[str] = field(default_factory=list)  # edited by both, and the beside copy edited too
    pending: list[str] = field(default_factory=list)  # course updates placed earlier, still there

    def lines(self, workspace: Path) -> list[str]:
        out = []
        if self.copied:
            out.append(f"copied into {workspace}/: {', '.join(self.copied)}")
        for rel in self.updated:
            out.append(f"the course updated {rel}; you had not changed it, so your copy "
                       f"now has the update")
        for rel in self.rerun:
            out.append(f"the course updated {rel}; you had run it but not edited its cells, "
                       f"so your copy now has the update (run it again for your outputs)")
        for rel in self.offered:
            out.append(f"the course updated {rel}, which you changed: yours is untouched, "
                       f"the course's version is {beside(rel)}")
        for rel in self.kept:
            out.append(f"the course updated {rel} again, but you edited {beside(rel)}: "
                       f"neither was touched (rename it to receive the newer version)")
        for rel in self.pending:
            out.append(f"still to compare: {rel} and {beside(rel)} (delete the latter when done)")
        return out


def _load_manifest(workspace: Path) -> dict:
    path = workspace / MANIFEST
    if not path.exists():
        return {"files": {}, "offered": {}, "cells": {}}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise SystemExit(f"{path} is not valid JSON ({exc}); delete it and every copy "
                         f"counts as yours (nothing is overwritten)") from None
    return {"files": dict(data.get("files", {})), "offered": dict(data.get("offered", {})),
            "cells": dict(data.get("cells", {}))}  # (absent in a manifest of an older kit)


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def sync(course: Path, workspace: Path) -> Report:
    """Bring ``workspace`` up to date with the course at ``course``; never overwrites
    a file the student changed (see the module docstring for the rules)."""
    course, workspace = Path(course), Path(workspace)
    manifest = _load_manifest(workspace)
    copied_from, offered, cells = manifest["files"], manifest["offered"], manifest["cells"]
    report = Report()
    for rel, source in course_files(course).items():
        target = workspace / rel
        new = file_hash(source)
        if not target.exists():
            _copy(source, target)
            report.copied.append(rel)
        else:
            mine, base = file_hash(target), copied_from.get(rel)
            if mine == new:  # the same as the course's (already, or again)
                pass
            elif base == new:  # the course has not changed since: the differences are theirs
                _remind(workspace, rel, offered, report)
                _record_cells(cells, rel, source)  # (the course file is the base: known now)
                continue
            elif mine == base:  # untouched since copied: follow the course
                _copy(source, target)
                report.updated.append(rel)
            elif _only_run(target, cells.get(rel), source):  # opened, run, saved: follow
                _copy(source, target)
                report.rerun.append(rel)
            elif not _offer(source, workspace, rel, new, offered, cells, report):
                continue  # (edited by both; the newer version is still to be delivered)
        copied_from[rel] = new
        _record_cells(cells, rel, source)
    shim = workspace / "exercises" / "conftest.py"
    if not shim.exists() or shim.read_text(encoding="utf-8") != EXERCISE_SHIM:
        shim.parent.mkdir(parents=True, exist_ok=True)
        _write_atomic(shim, EXERCISE_SHIM.encode())
    workspace.mkdir(parents=True, exist_ok=True)
    _write_atomic(workspace / MANIFEST, (json.dumps(
        {"about": "written by scripts/workspace.py: the course version each file was "
                  "copied from (sha256), and a lesson's cell sources; delete it and every "
                  "file counts as yours",
         "files": copied_from, "offered": offered, "cells": cells},
        indent=1, sort_keys=True) + "\n").encode())
    return report


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    shutil.copy2(source, tmp)
    os.replace(tmp, target)


def _record_cells(cells: dict, rel: str, source: Path) -> None:
    """Remember the cell sources of the course version ``rel`` now comes from."""
    written = cells_hash(source)
    if written is not None:
        cells[rel] = written
    else:
        cells.pop(rel, None)


def _only_run(target: Path, base_cells: str | None, source: Path) -> bool:
    """A lesson whose cells are as the course wrote them (the version it was copied
    from, or the new one): its other differences are metadata and outputs, which
    JupyterLab rewrites on opening and running, so it may follow the course."""
    mine = cells_hash(target)
    return mine is not None and mine in (base_cells, cells_hash(source))


def _offer(source: Path, workspace: Path, rel: str, new: str, offered: dict, cells: dict,
           report: Report) -> bool:
    """Place the course's version beside the student's (edited by both, or copied with
    no record), unless the student edited an earlier beside copy (for a lesson: its
    cells, not only opened or ran it): then nothing is touched, it is reported, and
    False returned."""
    other, name = workspace / beside(rel), beside(rel)
    if other.exists() and file_hash(other) not in (offered.get(rel), new) and \
            not _only_run(other, cells.get(name), source):
        report.kept.append(rel)
        return False
    _copy(source, other)
    offered[rel] = new
    _record_cells(cells, name, source)
    report.offered.append(rel)
    return True


def _remind(workspace: Path, rel: str, offered: dict, report: Report) -> None:
    if rel in offered and (workspace / beside(rel)).exists():
        report.pending.append(rel)
    elif rel in offered:  # the student deleted the beside copy: done comparing
        del offered[rel]


# --- JupyterLab settings ------------------------------------------------------------------

LAB_OVERRIDES = {
    # Save widget state in the notebook, so a saved lesson reopens with its widgets
    # (a progress bar at its final text) instead of "Error displaying widget".
    "@jupyter-widgets/jupyterlab-manager:plugin": {"saveState": True},
    # No news pop-up over the graphs on first start, no update check.
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false",
                                                    "checkForUpdates": False},
}


def install_lab_settings(prefix: str | os.PathLike = sys.prefix) -> Path:
    """Merge ``LAB_OVERRIDES`` into ``<prefix>/share/jupyter/lab/settings/overrides.json``
    (JupyterLab's defaults for every user of this environment; a user's own settings
    still win).  Other plugins' entries in the file are kept."""
    path = Path(prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    current = {}
    if path.exists():
        try:
            current = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            current = {}
    merged = dict(current)
    for plugin, values in LAB_OVERRIDES.items():
        merged[plugin] = {**current.get(plugin, {}), **values}
    if merged != current:
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_atomic(path, (json.dumps(merged, indent=2) + "\n").encode())
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    s = sub.add_parser("sync", help="create or update the student workspace")
    s.add_argument("--course", default=str(ROOT), help="the repository (default: this one)")
    s.add_argument("--workspace", default=None, help="default: COURSE/workspace")
    sub.add_parser("lab-settings", help="install the kit's JupyterLab setting overrides")
    args = ap.parse_args(argv)
    if args.command == "lab-settings":
        print(f"JupyterLab settings: {install_lab_settings()}")
        return 0
    course = Path(args.course)
    workspace = Path(args.workspace) if args.workspace else course / "workspace"
    first = not (workspace / MANIFEST).exists()
    report = sync(course, workspace)
    if first:
        print(f"made your workspace {workspace}/: your own copy of the lessons and "
              f"exercises (the course's stay in notebooks/ and exercises/)")
    else:
        for line in report.lines(workspace):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
