"""Tests mirror the packages (``minigrad/``, ``viz/``): every module with behaviour has a
test module named for it.

``minigrad/nn/init.py`` is tested in ``tests/minigrad/nn/test_init*.py``; a leading
underscore is dropped (``ops/tensor/_base.py`` -> ``test_base*.py``).  A module with no
behaviour of its own (a data table, private helpers exercised through their public
module) is listed in ``NO_OWN_TEST`` with the reason.  The list only shrinks: an entry
for a module that has since gained a test, or no longer exists, fails too.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# (package folder, its tests' folder), relative to the repository root
MIRRORS = (
    ("minigrad", "tests/minigrad"),
    ("viz", "tests/viz"),
)

# module path (relative to the root) -> why it has no test module of its own
NO_OWN_TEST = {
    "minigrad/autograd/graph.py": "saved_tensors_hooks under PyTorch's module name, a thin "
                                  "front to saved.py; tested with it in "
                                  "autograd/test_saved_tensors_hooks.py",
    "minigrad/func/_inputs.py": "private argument checks of the transforms, exercised through "
                                "every transform in tests/minigrad/func (bad argnums, "
                                "non-tensor results, wrong cotangents)",
    "minigrad/func/_lift.py": "private: the transforms' differentiable copies and stacks, "
                              "exercised through every transform in tests/minigrad/func",
    "minigrad/nn/functional/_util.py": "private argument and dtype helpers of the functional "
                                       "ops, exercised through them "
                                       "(nn/functional/test_functional_dtypes.py)",
    "minigrad/ops/tensor/_base.py": "private helpers of the op tables (gradient masks, test "
                                    "inputs, labels), exercised through every op's registry "
                                    "tests (ops/test_tensor_registry.py)",
}


def _names_a_test(name: str, stem: str) -> bool:
    """Whether test file ``name`` is named for module ``stem``: ``_base`` -> ``test_base.py``
    or ``test_base_*.py`` (so ``test_ranks.py`` does not count for ``rank.py``)."""
    stem = stem.lstrip("_")
    return name == f"test_{stem}.py" or (name.startswith(f"test_{stem}_") and
                                          name.endswith(".py"))


def mirror_problems(mirrors=MIRRORS, no_own_test=NO_OWN_TEST, root: Path = ROOT) -> list[str]:
    """Every way the tests fail to mirror the packages, one line each."""
    problems = []
    modules = set()
    for package, tests in mirrors:
        for path in sorted((root / package).rglob("*.py")):
            if path.name == "__init__.py":
                continue
            module = path.relative_to(root).as_posix()
            modules.add(module)
            folder = root / tests / path.parent.relative_to(root / package)
            if not folder.is_dir():
                problems.append(f"{module}: no folder {folder.relative_to(root).as_posix()}/")
                continue
            tested = any(_names_a_test(p.name, path.stem) for p in folder.glob("test_*.py"))
            if tested and module in no_own_test:
                problems.append(f"{module}: has a test now, remove it from NO_OWN_TEST")
            elif not tested and module not in no_own_test:
                stem = path.stem.lstrip("_")
                problems.append(f"{module}: no {folder.relative_to(root).as_posix()}/"
                                f"test_{stem}.py or test_{stem}_*.py (write one, or say in "
                                "NO_OWN_TEST why it has no behaviour of its own)")
    for module in sorted(set(no_own_test) - modules):
        problems.append(f"{module}: in NO_OWN_TEST but no longer exists")
    return problems


def test_a_test_module_is_named_for_its_module():
    assert _names_a_test("test_rank.py", "rank") and _names_a_test("test_base_x.py", "_base")
    assert not _names_a_test("test_ranks.py", "rank")


def test_every_module_has_a_test_module_in_the_mirrored_folder():
    problems = mirror_problems()
    assert not problems, "tests do not mirror the package:\n" + "\n".join(problems)


def test_the_check_finds_each_kind_of_problem(tmp_path):
    files = ["pkg/a.py", "pkg/_b.py", "pkg/sub/c.py", "pkg/sub/__init__.py", "pkg/other/d.py",
             "tests/pkg/test_a_values.py", "tests/pkg/test_b.py", "tests/pkg/sub/test_x.py"]
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    no_own_test = {"pkg/_b.py": "listed, but tested", "pkg/gone.py": "removed since"}
    assert mirror_problems((("pkg", "tests/pkg"),), no_own_test, tmp_path) == [
        "pkg/_b.py: has a test now, remove it from NO_OWN_TEST",
        "pkg/other/d.py: no folder tests/pkg/other/",
        "pkg/sub/c.py: no tests/pkg/sub/test_c.py or test_c_*.py (write one, or say in "
        "NO_OWN_TEST why it has no behaviour of its own)",
        "pkg/gone.py: in NO_OWN_TEST but no longer exists",
    ]
    del no_own_test["pkg/_b.py"], no_own_test["pkg/gone.py"]
    (tmp_path / "tests/pkg/other").mkdir()
    (tmp_path / "tests/pkg/other/test_d.py").write_text("")
    (tmp_path / "tests/pkg/sub/test_c.py").write_text("")
    assert mirror_problems((("pkg", "tests/pkg"),), no_own_test, tmp_path) == []
