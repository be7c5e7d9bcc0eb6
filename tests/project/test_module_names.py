"""Names that say one thing: no two modules in ``minigrad/`` and ``viz/`` share a file
name (``state.py``, ``graph.py`` and ``formatting.py`` once meant different things in the
two packages, and a newcomer had to open each to learn which was which)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def shared_names(folders, root: Path = ROOT) -> dict[str, list[str]]:
    """``{file name: [paths]}`` for module file names used more than once."""
    where = defaultdict(list)
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            if path.name != "__init__.py":
                where[path.name].append(path.relative_to(root).as_posix())
    return {name: paths for name, paths in where.items() if len(paths) > 1}


def test_no_two_modules_share_a_name():
    shared = shared_names(("minigrad", "viz"))
    assert not shared, "modules sharing a name: " + "; ".join(
        f"{name}: {', '.join(paths)}" for name, paths in sorted(shared.items()))


def test_the_check_finds_a_shared_name(tmp_path):
    for folder in ("a/x", "b"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "state.py").write_text("")
    (tmp_path / "b" / "__init__.py").write_text("")
    assert shared_names(("a", "b"), tmp_path) == {"state.py": ["a/x/state.py", "b/state.py"]}
