"""``tests/viz/`` mirrors ``viz/``: every module (not ``__init__.py``) has a test module in
the same folders named for it, ``test_<stem>.py`` or ``test_<stem>_<behaviour>.py``
(leading underscores dropped: ``_x.py`` -> ``test_x*.py``), or an entry in ``NO_OWN_TEST``
saying why not.  The list only shrinks: an entry for a module that has gained a test, or
that no longer exists, fails too.  (The same check for ``minigrad/`` is in
``tests/project/``.)"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# viz module (path from the repository root) -> why it has no test module of its own
NO_OWN_TEST: dict[str, str] = {}


def has_own_test(module: Path, package: Path, tests: Path) -> bool:
    folder = tests / module.parent.relative_to(package)
    stem = module.stem.lstrip("_")
    return any(p.name == f"test_{stem}.py" or p.name.startswith(f"test_{stem}_")
               for p in folder.glob(f"test_{stem}*.py"))


def mirror_problems(root: Path = ROOT, package: str = "viz", tests: str = "tests/viz",
                    exempt: dict[str, str] = NO_OWN_TEST) -> list[str]:
    """What breaks the mirror, one line each (empty when ``tests`` mirrors ``package``)."""
    pkg, tst = root / package, root / tests
    problems = []
    modules = sorted(p for p in pkg.rglob("*.py") if p.name != "__init__.py")
    for module in modules:
        name = module.relative_to(root).as_posix()
        own = has_own_test(module, pkg, tst)
        if not own and name not in exempt:
            test = f"{(Path(tests) / module.parent.relative_to(pkg)).as_posix()}/test_" \
                   f"{module.stem.lstrip('_')}"
            problems.append(f"{name}: no {test}.py or {test}_*.py, and no NO_OWN_TEST entry")
        elif own and name in exempt:
            problems.append(f"{name}: has a test module now; drop its NO_OWN_TEST entry")
    names = {m.relative_to(root).as_posix() for m in modules}
    problems += [f"{name}: listed in NO_OWN_TEST but no longer exists"
                 for name in sorted(set(exempt) - names)]
    return problems


def test_every_viz_module_has_a_test_module_named_for_it():
    problems = mirror_problems()
    assert not problems, "tests/viz does not mirror viz:\n" + "\n".join(problems)


def test_the_check_finds_a_missing_test_and_stale_entries(tmp_path):
    for path in ("p/__init__.py", "p/a/__init__.py", "p/a/ok.py", "p/a/_private.py",
                 "p/a/missing.py", "p/a/listed.py", "p/a/grew_one.py", "p/b.py",
                 "t/a/test_ok_behaviour.py", "t/a/test_private.py", "t/a/test_grew_one.py",
                 "t/a/test_missingness.py", "t/test_b.py"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("")
    exempt = {"p/a/listed.py": "glue", "p/a/grew_one.py": "glue", "p/a/gone.py": "glue"}
    assert mirror_problems(tmp_path, "p", "t", exempt) == [
        "p/a/grew_one.py: has a test module now; drop its NO_OWN_TEST entry",
        "p/a/missing.py: no t/a/test_missing.py or t/a/test_missing_*.py, and no NO_OWN_TEST "
        "entry",
        "p/a/gone.py: listed in NO_OWN_TEST but no longer exists",
    ]
