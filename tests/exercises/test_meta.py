"""Meta-tests for exercises/: the catalogue, stubs, solutions and checks agree, the
stubs are still unsolved, the checks pass the solutions and reject known wrong
answers, and the pytest plugin gives students skip / fail / pass as promised."""

from __future__ import annotations

import ast
import inspect
import os
import re
import shutil
import subprocess
import sys

import pytest

from exercises import EXERCISES, _runner
from exercises.checks.mistakes import MISTAKES
from tests._helpers import ROOT

EXERCISE_DIR = ROOT / "exercises"
TASKS = [(ex, task) for ex in EXERCISES for task in ex.tasks]


def _task_id(param):
    return f"{param[0].id}-{param[1]}" if isinstance(param, tuple) else None


# --- the catalogue and the files ------------------------------------------------------
def test_at_least_twelve_exercises_covering_every_lesson():
    assert len(EXERCISES) >= 12
    assert len({ex.id for ex in EXERCISES}) == len(EXERCISES)
    lessons = {int(p.name[:2]) for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")}
    assert {ex.lesson for ex in EXERCISES} <= lessons
    assert [ex.id for ex in EXERCISES] == sorted(ex.id for ex in EXERCISES)


def test_every_exercise_file_is_in_the_catalogue():
    stubs = {p.stem for p in EXERCISE_DIR.glob("ex[0-9][0-9]_*.py")}
    assert stubs == {ex.module for ex in EXERCISES}
    solutions = {p.stem for p in (EXERCISE_DIR / "solutions").glob("ex[0-9][0-9]_*.py")}
    assert solutions == stubs
    checks = {p.stem for p in (EXERCISE_DIR / "checks").glob("ex[0-9][0-9]_*.py")}
    assert checks == stubs


@pytest.mark.parametrize("ex", EXERCISES, ids=lambda ex: ex.id)
def test_stub_solution_and_checks_export_the_same_tasks(ex):
    stub = _runner.load(ex)
    solution = _runner.load(ex, solutions=True)
    assert tuple(stub.__all__) == ex.tasks
    assert tuple(solution.__all__) == ex.tasks
    for task in ex.tasks:
        assert callable(_runner.checker(ex, task))


@pytest.mark.parametrize("ex", EXERCISES, ids=lambda ex: ex.id)
def test_stub_docstring_names_exercise_and_lesson(ex):
    stub = _runner.load(ex)
    first = stub.__doc__.strip().splitlines()[0]
    assert first.startswith(f"Exercise {ex.id[2:]} · ")
    assert first.endswith(f"(lesson {ex.lesson}).")
    assert f"python -m exercises {ex.id}" in stub.__doc__ and f'check("{ex.id}")' in stub.__doc__


def test_readme_lists_every_exercise_with_its_lesson():
    readme = (EXERCISE_DIR / "README.md").read_text(encoding="utf-8")
    for ex in EXERCISES:
        row = next((line for line in readme.splitlines() if f"`{ex.module}.py`" in line), None)
        assert row is not None, f"README has no row for {ex.module}"
        assert re.search(rf"\|\s*{ex.lesson}\s*\|", row), f"README row of {ex.id}: lesson?"


def test_ex01_docstring_shows_what_viz_text_really_prints():
    """If the printer's format changes, the exercise text must change with it."""
    import textwrap

    import viz
    from exercises.checks import ex01_graph_text as checks

    doc = _runner.load("ex01").__doc__
    assert textwrap.indent(checks.TARGET, "    ") in doc
    assert textwrap.indent(viz.text(checks.quiz_graph()[0]), "    ") in doc


# --- signatures, and stubs that are still stubs -----------------------------------------
def _methods(cls) -> dict:
    out = {}
    for name, value in vars(cls).items():
        fn = getattr(value, "__func__", value)
        if inspect.isfunction(fn) and (not name.startswith("_") or name == "__init__"):
            out[name] = (type(value).__name__, inspect.signature(fn))
    return out


@pytest.mark.parametrize("param", TASKS, ids=_task_id)
def test_stub_and_solution_signatures_match(param):
    ex, task = param
    stub = getattr(_runner.load(ex), task)
    solution = getattr(_runner.load(ex, solutions=True), task)
    if inspect.isclass(stub):
        assert inspect.isclass(solution)
        assert [b.__name__ for b in stub.__bases__] == [b.__name__ for b in solution.__bases__]
        assert _methods(stub) == _methods(solution)
    else:
        assert inspect.signature(stub) == inspect.signature(solution)


def _only_raises_not_implemented(fn: ast.FunctionDef) -> bool:
    body = list(fn.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    if len(body) != 1 or not isinstance(body[0], ast.Raise):
        return False
    exc = body[0].exc
    name = exc.func if isinstance(exc, ast.Call) else exc
    return isinstance(name, ast.Name) and name.id == "NotImplementedError"


@pytest.mark.parametrize("ex", EXERCISES, ids=lambda ex: ex.id)
def test_every_stub_still_raises_not_implemented(ex):
    """Nobody commits a solution into a stub: each task body is just the raise."""
    tree = ast.parse((EXERCISE_DIR / f"{ex.module}.py").read_text(encoding="utf-8"))
    defs = {node.name: node for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    for task in ex.tasks:
        node = defs[task]
        functions = [node] if isinstance(node, ast.FunctionDef) else [
            n for n in node.body if isinstance(n, ast.FunctionDef)]
        assert functions, f"{ex.id} {task} defines nothing to implement"
        for fn in functions:
            assert _only_raises_not_implemented(fn), f"{ex.module}.py: {task}.{fn.name} is solved"
    outcomes = _runner.run(ex)
    assert [o.status for o in outcomes] == [_runner.NOT_ATTEMPTED] * len(ex.tasks), [
        (o.task, o.status, o.message[:200]) for o in outcomes]


# --- the checks pass the solutions and bite ------------------------------------------------
@pytest.mark.parametrize("ex", EXERCISES, ids=lambda ex: ex.id)
def test_checks_pass_the_reference_solutions(ex):
    outcomes = _runner.run(ex, solutions=True)
    assert all(o.ok for o in outcomes), _runner.report(outcomes)


def test_every_task_has_wrong_answers_to_reject():
    missing = [f"{ex.id} {task}" for ex, task in TASKS if not MISTAKES.get((ex.id, task))]
    assert not missing, f"no known wrong answers for: {', '.join(missing)}"
    assert set(MISTAKES) <= {(ex.id, task) for ex, task in TASKS}


MISTAKE_CASES = [(ex, task, m) for ex, task in TASKS for m in MISTAKES.get((ex.id, task), [])]


@pytest.mark.parametrize("ex, task, mistake", MISTAKE_CASES,
                         ids=[f"{ex.id}-{task}-{m.what}" for ex, task, m in MISTAKE_CASES])
def test_checks_reject_a_plausible_wrong_answer(ex, task, mistake):
    outcome = _runner.run_task(ex, task, mistake.impl)
    assert outcome.status == _runner.FAILED, (outcome.status, outcome.message)
    assert mistake.expect in outcome.message, outcome.message


# --- the notebook API ---------------------------------------------------------------------
def test_check_prints_a_report_and_raises_on_failure(capsys):
    from exercises import ExerciseFailure, check
    from exercises.solutions.ex04_exp_pow import exp_backward

    check("ex04", exp_backward)  # matched by name; pow_backward not given: not checked
    assert capsys.readouterr().out.splitlines() == [
        "ex04 the backward rules of exp and pow (lesson 2)", "  ✓ exp_backward: passed"]
    with pytest.raises(ExerciseFailure, match="ex02: mul_backward not right yet"):
        check(2, mul_backward=lambda g, a, b: (b, a))
    out = capsys.readouterr().out
    assert "✗ mul_backward: failed" in out and "hint:" in out
    check("ex02")  # the untouched stub
    assert "· mul_backward: not attempted yet" in capsys.readouterr().out
    with pytest.raises(TypeError, match="tasks: exp_backward, pow_backward"):
        check("ex04", lambda g, out: g * out)
    with pytest.raises(KeyError, match="no exercise"):
        check("ex99")


def test_not_implemented_from_elsewhere_is_an_error_not_a_skip():
    def half_done(g, a, b):
        return helper(g, a, b)

    def helper(g, a, b):
        raise NotImplementedError

    outcome = _runner.run("ex02", mul_backward=half_done)[0]
    assert outcome.status == _runner.ERROR


# --- the pytest plugin, as a student sees it ---------------------------------------------
def _pytest(cwd, *args, env=None):
    run_env = {k: v for k, v in os.environ.items() if k != "MINIGRAD_SOLUTIONS"}
    run_env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # the exercises need none; nbval is slow
    run_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
                          cwd=cwd, env=run_env, capture_output=True, text=True, timeout=300)


def test_student_view_skip_fail_pass(tmp_path):
    """A copy of exercises/ where ex02 is wrong and ex04 is right; the rest untouched."""
    shutil.copytree(EXERCISE_DIR, tmp_path / "exercises",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    stub = tmp_path / "exercises" / "ex02_mul_backward.py"
    stub.write_text(stub.read_text().replace("    raise NotImplementedError",
                                             "    return b, a"))
    shutil.copy(EXERCISE_DIR / "solutions" / "ex04_exp_pow.py",
                tmp_path / "exercises" / "ex04_exp_pow.py")

    result = _pytest(tmp_path, "exercises")
    out = result.stdout
    assert result.returncode == 1, out + result.stderr
    n_tasks = sum(len(ex.tasks) for ex in EXERCISES)
    assert f"1 failed, 2 passed, {n_tasks - 3} skipped" in out, out
    assert "ex02 mul_backward" in out and "multiply it by the upstream gradient g" in out
    assert "SKIPPED [1] exercises/ex03_tanh.py:1: not attempted yet: ex03 tanh" in out
    assert "_support.py" not in out  # no traceback into the checking code
    assert "exercises (your answers): 2 passed, 1 failed" in out

    result = _pytest(tmp_path, "exercises", "-k", "ex02 or ex03",
                     env={"MINIGRAD_SOLUTIONS": "1"})
    assert result.returncode == 0 and "3 passed" in result.stdout, result.stdout
    assert "reference solutions" in result.stdout


def test_a_file_that_does_not_import_gets_one_short_message(tmp_path):
    """A syntax error or a bad import in a stub names the file and line, in pytest and in
    run()/report(), instead of a page of importlib internals (or an exception in a
    notebook cell that is meant to only report)."""
    shutil.copytree(EXERCISE_DIR, tmp_path / "exercises",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    ex02 = tmp_path / "exercises" / "ex02_mul_backward.py"
    good = ex02.read_text()
    lines = good.splitlines(keepends=True)
    bad_line = next(i for i, line in enumerate(lines) if line.startswith("__all__")) + 1
    ex02.write_text("".join(lines[:bad_line - 1]) + "x = (\n" + "".join(lines[bad_line - 1:]))
    ex04 = tmp_path / "exercises" / "ex04_exp_pow.py"
    ex04.write_text(ex04.read_text().replace("__all__", "import numpyy\n__all__", 1))

    result = _pytest(tmp_path, "exercises", "-k", "ex02 or ex04")
    out = result.stdout
    assert result.returncode == 1, out + result.stderr
    assert "3 failed" in out, out
    assert (f"ex02: your file exercises/ex02_mul_backward.py doesn't import: SyntaxError at "
            f"line {bad_line}: '(' was never closed") in out
    assert "ex04: your file exercises/ex04_exp_pow.py doesn't import: ModuleNotFoundError " \
           "at line" in out and "No module named 'numpyy'" in out
    assert "importlib" not in out and len(out.splitlines()) < 40, out

    # the notebook path: run() reports the error, even for a file that imported
    # fine before and broke afterwards (reload)
    script = (
        "import pathlib\n"
        "from exercises import run, report\n"
        "ex02 = pathlib.Path('exercises/ex02_mul_backward.py')\n"
        "bad = ex02.read_text()\n"
        f"ex02.write_text({good!r})\n"
        "print(run('ex02')[0].status)\n"
        "ex02.write_text(bad)\n"
        "print(report(run('ex02')))\n"
        "print(report(run('ex04')))\n"
    )
    result = subprocess.run([sys.executable, "-B", "-c", script], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    out = result.stdout.splitlines()
    assert out[0] == "not attempted"
    assert out[1:5] == [
        "ex02 the backward rule of mul (lesson 2)",
        "  ✗ mul_backward: error",
        f"      ex02: your file exercises/ex02_mul_backward.py doesn't import: SyntaxError at "
        f"line {bad_line}: '(' was never closed",
        "          x = (",
    ]
    assert "  ✗ pow_backward: error (the same error as above)" in out
