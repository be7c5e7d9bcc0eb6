"""Running checks: find the student's code (or the reference solution), run each
task's check, and sort the result into passed / failed / not attempted / error.

Both front ends use this: the pytest plugin in ``conftest.py`` and
``exercises.check(...)`` for notebook cells.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import linecache
import os
import sys
import textwrap
import traceback
from dataclasses import dataclass
from pathlib import Path

from ._catalog import Exercise, find
from ._traceback import student_frame
from .checks import ExerciseFailure

__all__ = ["Outcome", "LoadError", "CheckError", "load", "student_file", "your_file", "shown",
           "checker", "untouched", "classify", "run_task", "run", "check", "report"]

COURSE = Path(__file__).resolve().parent  # the course's stubs: exercises/exNN_*.py
WORKSPACE_MANIFEST = ".minigrad-workspace.json"  # written by scripts/workspace.py (make lab)
WORKSPACE_ENV = "MINIGRAD_WORKSPACE"  # a workspace made elsewhere (make lab WORKSPACE=...)

PASSED, FAILED, NOT_ATTEMPTED, ERROR = "passed", "failed", "not attempted", "error"


@dataclass(frozen=True)
class Outcome:
    exercise: Exercise
    task: str
    status: str  # PASSED, FAILED, NOT_ATTEMPTED or ERROR
    message: str = ""

    @property
    def ok(self) -> bool:
        return self.status == PASSED


class LoadError(Exception):
    """The exercise file itself does not import (a syntax error, a bad import, ...).

    Its message is the whole story in two lines: a student needs the line to
    fix, not a page of importlib internals.
    """


class CheckError(Exception):
    """An exception escaped a check (not a wrong answer the check recognised); its message
    is the short description from ``classify``, not a traceback through the checks."""


def student_file(exercise, start=None) -> Path:
    """The file ``check`` reads: your workspace copy when the code runs inside a
    workspace, else the course's ``exercises/<module>.py``.

    A notebook's kernel runs in the notebook's folder, so ``start`` (default: the
    working directory) or a folder above it holding the workspace manifest means
    "inside a workspace", and its ``exercises/<module>.py`` is the student's.
    """
    ex = find(exercise)
    here = Path(start if start is not None else os.getcwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / WORKSPACE_MANIFEST).is_file():
            mine = folder / "exercises" / f"{ex.module}.py"
            if mine.is_file():
                return mine
            break
    return COURSE / f"{ex.module}.py"


def your_file(exercise, start=None) -> Path:
    """The file ``python -m exercises`` checks: ``student_file`` (a workspace around
    ``start``), else the copy in this repository's workspace (``make lab`` makes it at
    ``<repository>/workspace/``; ``$MINIGRAD_WORKSPACE`` names another), else the
    course's stub.

    So the command checks the student's work from the repository root as from a terminal
    opened in JupyterLab (in the workspace, or the folder Lab was started from).
    ``check()`` in a notebook of the course's ``notebooks/`` keeps reading the course's
    stub: those are what the tests and nbval run.
    """
    ex = find(exercise)
    found = student_file(ex, start)
    if found != COURSE / f"{ex.module}.py":
        return found
    workspace = Path(os.environ.get(WORKSPACE_ENV) or COURSE.parent / "workspace")
    mine = workspace / "exercises" / f"{ex.module}.py"
    return mine if (workspace / WORKSPACE_MANIFEST).is_file() and mine.is_file() else found


def shown(path: Path) -> str:
    """``workspace/exercises/ex04_exp_pow.py``: relative to the repository when inside it."""
    path = Path(path).resolve()
    return path.relative_to(COURSE.parent).as_posix() if COURSE.parent in path.parents \
        else str(path)


def load(exercise, solutions: bool = False, reload: bool = False, path=None):
    """The module with the student's code (or, with ``solutions``, the reference).

    The student's code is ``path`` when given, else ``student_file(exercise)``.  The
    course's stub imports as ``exercises.<module>``; a workspace copy is executed from
    its file, afresh on each call, so edits are seen.  Raises ``LoadError`` with a short
    message when the file does not import.
    """
    ex = find(exercise)
    path = None if solutions else Path(path or student_file(ex)).resolve()
    try:
        if path is not None and path != COURSE / f"{ex.module}.py":
            return _exec_file(ex, path)
        name = f"exercises.{'solutions.' if solutions else ''}{ex.module}"
        if reload and name in sys.modules:
            return importlib.reload(sys.modules[name])
        return importlib.import_module(name)
    except Exception as exc:
        raise LoadError(_load_message(ex, exc, solutions, path)) from exc


def _exec_file(ex: Exercise, path: Path):
    """Run the file ``path`` as a fresh module (named apart from the course's stub)."""
    name = f"exercises_yours.{ex.module}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    linecache.checkcache(str(path))  # tracebacks show the lines as edited
    sys.modules[name] = module  # as an import would (dataclasses, pickle look it up)
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _load_message(ex: Exercise, exc: Exception, solutions: bool, path=None) -> str:
    """``ex02: your file exercises/ex02_mul_backward.py doesn't import: SyntaxError at
    line 21: '(' was never closed`` and the line itself."""
    if path is None:
        path = COURSE / ("solutions" if solutions else "") / f"{ex.module}.py"
    named = shown(path)  # the course's, or a workspace in the repository: repository-relative
    whose = "the reference solution" if solutions else "your file"
    kind = type(exc).__name__
    if isinstance(exc, SyntaxError):
        where, lineno, text = exc.filename, exc.lineno, exc.text
        detail = exc.msg
    else:
        where = lineno = text = None
        for frame, line in traceback.walk_tb(exc.__traceback__):  # the last line of ours
            if frame.f_code.co_filename and Path(frame.f_code.co_filename).resolve() == path:
                where, lineno = str(path), line
        if lineno is not None:
            text = linecache.getline(str(path), lineno)
        detail = str(exc)
    if where and lineno and Path(where).resolve() != path:  # e.g. a file it imports
        at = f" in {where}, line {lineno}"
    else:
        at = f" at line {lineno}" if lineno else ""
    message = f"{ex.id}: {whose} {named} doesn't import: {kind}{at}: {detail}"
    if text and text.strip():
        message += f"\n    {text.strip()}"
    return message


def checker(exercise, task: str):
    """The function that checks one task: ``checks/<module>.py::check_<task>``."""
    ex = find(exercise)
    module = importlib.import_module(f"exercises.checks.{ex.module}")
    return getattr(module, f"check_{task}")


def _own_code(obj) -> set:
    """Code objects that belong to a task: the function's, or every method's of a class."""
    if inspect.isclass(obj):
        return {fn.__code__ for fn in _methods(obj).values()}
    code = getattr(obj, "__code__", None)
    return {code} if code is not None else set()


def untouched(exc: BaseException, obj) -> bool:
    """True when ``NotImplementedError`` came straight from the task's own body (a stub)."""
    if not isinstance(exc, NotImplementedError) or exc.__traceback__ is None:
        return False
    *_, (frame, _) = traceback.walk_tb(exc.__traceback__)
    return frame.f_code in _own_code(obj)


def run_task(exercise, task: str, obj, *, solutions: bool = False) -> Outcome:
    """Check one task's implementation ``obj``."""
    ex = find(exercise)
    try:
        checker(ex, task)(obj)
    except ExerciseFailure as exc:
        return Outcome(ex, task, FAILED, str(exc))
    except Exception as exc:
        return classify(ex, task, exc, obj, solutions=solutions)
    return Outcome(ex, task, PASSED)


def classify(exercise, task: str, exc: Exception, obj, *, solutions: bool = False) -> Outcome:
    """The outcome for an exception that escaped a check (anything but ``ExerciseFailure``):
    not attempted (an untouched stub), a failure (a class only partly written), or an error
    described in a few lines rather than a traceback through the checking code."""
    ex = find(exercise)
    if isinstance(exc, NotImplementedError) and untouched(exc, obj) and not solutions:
        methods = _methods(obj) if inspect.isclass(obj) else {}
        stubs = [name for name, fn in methods.items() if _is_stub(fn)]
        if not stubs or len(stubs) == len(methods):
            return Outcome(ex, task, NOT_ATTEMPTED, "it still raises NotImplementedError")
        # Some methods are written: "not attempted" would hide that the rest is missing.
        names = ", ".join(f"{obj.__name__}.{name}" for name in stubs)
        verb = "raises" if len(stubs) == 1 else "raise"
        return Outcome(ex, task, FAILED,
                       f"{obj.__name__} is only partly written: {names} still {verb} "
                       f"NotImplementedError\nhint: the checks use every method; finish "
                       f"{'it' if len(stubs) == 1 else 'them'}")
    return Outcome(ex, task, ERROR, _describe_error(exc, obj))


def _methods(cls) -> dict:
    """``{name: function}`` for a class's own methods (static, class and property getters
    unwrapped)."""
    out = {}
    for name, value in vars(cls).items():
        fn = getattr(value, "__func__", value)
        if isinstance(fn, property):
            fn = fn.fget
        if inspect.isfunction(fn):
            out[name] = fn
    return out


def _is_stub(fn) -> bool:
    """The body is only ``raise NotImplementedError`` (after an optional docstring)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return False
    body = tree.body[0].body if tree.body and hasattr(tree.body[0], "body") else []
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return False
    target = body[0].exc.func if isinstance(body[0].exc, ast.Call) else body[0].exc
    return isinstance(target, ast.Name) and target.id == "NotImplementedError"


def _student_line(exc: BaseException, obj):
    """(file, line number, source line) of the innermost frame in the student's code: the
    file ``obj`` is defined in, else the innermost frame outside the checks and libraries."""
    try:
        own = os.path.abspath(inspect.getsourcefile(obj) or "")
    except TypeError:
        own = ""
    where = student_frame(exc.__traceback__, own)
    if where is None:
        return None
    path, lineno = where
    return os.path.relpath(path) if path.startswith(os.getcwd()) else path, lineno, \
        linecache.getline(path, lineno).strip()


def _describe_error(exc: BaseException, obj) -> str:
    """``AttributeError: 'Tape' object has no attribute 'mul'`` plus the student's line
    and, for the usual causes, a hint: a few lines instead of a page of traceback."""
    detail = str(exc)
    lines = [f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__]
    where = _student_line(exc, obj)
    if where:
        path, lineno, text = where
        lines.append(f"  at {path}:{lineno}" + (f": {text}" if text else ""))
    hint = None
    if isinstance(exc, NotImplementedError):
        *_, (frame, _) = traceback.walk_tb(exc.__traceback__)
        hint = (f"a helper still raises NotImplementedError ({frame.f_code.co_name}): "
                f"finish every function the task calls")
    elif isinstance(exc, AttributeError) and inspect.isclass(obj) and exc.name and (
            exc.obj is obj or isinstance(exc.obj, obj)):
        hint = (f"the checks call {obj.__name__}.{exc.name}: is a method missing or "
                f"misnamed?")
    if hint:
        lines.append(f"hint: {hint}")
    return "\n".join(lines)


def _pick(ex: Exercise, impls: tuple, named: dict) -> dict:
    chosen = {}
    for obj in impls:
        name = getattr(obj, "__name__", None)
        if name in ex.tasks:
            chosen[name] = obj
        elif len(ex.tasks) == 1:
            chosen[ex.tasks[0]] = obj
        else:
            raise TypeError(
                f"{ex.id}: cannot tell which task {name or obj!r} is for; pass it by name, "
                f"e.g. check({ex.id!r}, {ex.tasks[0]}=...); tasks: {', '.join(ex.tasks)}")
    for name, obj in named.items():
        if name not in ex.tasks:
            raise TypeError(f"{ex.id} has no task {name!r}; tasks: {', '.join(ex.tasks)}")
        chosen[name] = obj
    return chosen


def run(exercise, *impls, solutions: bool = False, path=None, **named) -> list[Outcome]:
    """Check an exercise and return one ``Outcome`` per task.

    With no implementations given, checks the file ``path`` (default
    ``student_file(exercise)``: your workspace copy in a workspace, else
    ``exercises/<module>.py``; re-read, so edits are seen) or, with ``solutions=True``,
    the reference.  Implementations passed in (positionally, matched by ``__name__``,
    or by task name) are checked alone.
    """
    ex = find(exercise)
    chosen = _pick(ex, impls, named)
    if not chosen:
        try:
            module = load(ex, solutions=solutions, reload=True, path=path)
        except LoadError as exc:  # reported like any other error: run() never raises for it
            return [Outcome(ex, task, ERROR, str(exc)) for task in ex.tasks]
        chosen = {task: getattr(module, task) for task in ex.tasks}
    return [run_task(ex, task, obj, solutions=solutions) for task, obj in chosen.items()]


_MARKS = {PASSED: "✓", FAILED: "✗", NOT_ATTEMPTED: "·", ERROR: "✗"}


def report(outcomes: list[Outcome]) -> str:
    """The text ``check`` prints: a heading, then one line (plus details) per task."""
    lines = [str(outcomes[0].exercise)] if outcomes else []
    previous = None
    for o in outcomes:
        status = "not attempted yet" if o.status == NOT_ATTEMPTED else o.status
        line = f"  {_MARKS[o.status]} {o.task}: {status}"
        if o.status == NOT_ATTEMPTED:
            line += f" ({o.message})"
        if o.status == ERROR and o.message == previous:  # e.g. a file that doesn't import
            line += " (the same error as above)"
        lines.append(line)
        if o.status in (FAILED, ERROR) and o.message != previous:
            lines.extend("      " + text for text in o.message.splitlines())
        previous = o.message if o.status == ERROR else None
    return "\n".join(lines)


def check(exercise, *impls, solutions: bool = False, **named) -> None:
    """Check an exercise from a notebook cell or a script and print the result.

    Raises ``ExerciseFailure`` when a task fails, so a failing cell shows red.
    """
    outcomes = run(exercise, *impls, solutions=solutions, **named)
    print(report(outcomes))
    mine = student_file(exercise)
    if not (impls or named or solutions) and mine != COURSE / f"{find(exercise).module}.py":
        print(f"  (checked your workspace copy {shown(mine)})")
    bad = [o.task for o in outcomes if o.status in (FAILED, ERROR)]
    if bad:
        raise ExerciseFailure(f"{find(exercise).id}: {', '.join(bad)} not right yet (see above)")
