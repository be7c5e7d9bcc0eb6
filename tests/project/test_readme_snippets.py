"""The README's code for forward mode, the function transforms and the jit runs as written
and says what its comments and printed output claim."""

from __future__ import annotations

import contextlib
import io

import numpy as np

from tests._helpers import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    start = README.index(f"## {title}\n")
    end = README.index("\n## ", start + 3)
    return README[start:end]


def _blocks(section: str, lang: str = "") -> list[str]:
    """The fenced blocks of ``section`` whose opening fence is ```` ```lang ````, in order."""
    blocks, current, current_lang = [], None, None
    for line in section.splitlines(keepends=True):
        if current is None and line.startswith("```"):
            current, current_lang = [], line[3:].strip()
        elif current is not None and line.strip() == "```":
            if current_lang == lang:
                blocks.append("".join(current))
            current = None
        elif current is not None:
            current.append(line)
    return blocks


def test_the_forward_mode_snippet_runs_and_its_comments_hold():
    ns: dict = {}
    exec(compile(_blocks(_section("Forward mode and function transforms"), "python")[0],
                 "README.md", "exec"), ns)
    x = ns["x"].data
    np.testing.assert_allclose(ns["dy"].data, 1 - np.tanh(x) ** 2)
    assert (ns["n"].forward, ns["n"].forward_directions, ns["n"].backward) == (1, 3, 0)
    hess = ns["func"].hessian(ns["f"])(ns["x"]).data
    np.testing.assert_allclose(ns["hv"].data, hess @ np.ones(3), rtol=1e-12)


def test_the_jit_snippet_prints_the_tape_the_readme_shows():
    section = _section("Tracing and fusion")
    code, shown = _blocks(section, "python")[0], _blocks(section)[-1]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile("import numpy as np\n" + code, "README.md", "exec"), {})
    assert out.getvalue() == shown


def test_the_jit_snippet_compiles_with_jit_jit_and_matches_eager_gradients():
    """``from minigrad import jit`` gives the module; the README calls ``jit.jit(f)`` (issue 31)."""
    ns: dict = {}
    code = _blocks(_section("Tracing and fusion"), "python")[0]
    assert "jit.jit(f)" in code
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile("import numpy as np\n" + code, "README.md", "exec"), ns)
    compiled_grad = ns["x"].grad.copy()
    ns["x"].grad = None
    ns["f"](ns["x"], ns["y"]).backward()
    np.testing.assert_array_equal(compiled_grad, ns["x"].grad)


def test_the_vmap_snippet_gives_per_example_gradients_in_one_pass():
    """The README's per-example gradients equal a loop of ``grad``, their mean is the batch
    loss's gradient, and the comment's pass counts hold."""
    from minigrad import func

    ns: dict = {}
    exec(compile(_blocks(_section("Batching with vmap"), "python")[0], "README.md", "exec"), ns)
    w, xs, ts, loss, g = ns["w"], ns["xs"], ns["ts"], ns["loss"], ns["g"]
    loop = np.stack([func.grad(loss)(w, xs[i], ts[i]).data for i in range(8)])
    assert g.shape == (8, 4, 3)
    np.testing.assert_allclose(g.data, loop, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(ns["norms"], np.linalg.norm(loop.reshape(8, -1), axis=1))
    assert (ns["n"].forward, ns["n"].backward) == (1, 1)
    batch = func.grad(lambda w: ns["F"].cross_entropy(xs @ w, ts))(w)
    np.testing.assert_allclose(g.data.mean(axis=0), batch.data, rtol=1e-10, atol=1e-15)
