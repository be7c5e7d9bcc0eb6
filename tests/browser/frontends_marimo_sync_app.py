"""The browser's step seen by Python in marimo (driven by tests/browser/test_frontends.py).

Two ways a marimo notebook reads the step a student clicked to:
* ``view = mo.ui.anywidget(stepper.widget)`` bound to a name: a cell that reads ``view``
  runs again by itself whenever the widget's traitlets change in the browser;
* the stepper shown as it is (``stepper``): its ``step`` follows the browser too, and a
  cell reads it when it runs (here on a button's click); ``goto`` moves the browser.
"""

import marimo

app = marimo.App()


@app.cell
def _():
    import marimo as mo

    import viz

    def neuron(a, b, c):
        e = a * b
        e.label = "e"
        return (e + c).tanh()

    return mo, neuron, viz


@app.cell
def _(mo, neuron, viz):
    bound = viz.step_through(neuron, 2.0, -3.0, 10.0)
    view = mo.ui.anywidget(bound.widget)
    view  # noqa: B018  (a cell shows its last expression)
    return bound, view


@app.cell
def _(bound, mo, view):
    # runs again whenever the browser moves the widget
    mo.md(f"bound: python step {bound.step}, widget value step {view.value['step']}")
    return


@app.cell
def _(neuron, viz):
    plain = viz.step_through(neuron, 2.0, -3.0, 10.0)
    plain  # noqa: B018
    return (plain,)


@app.cell
def _(mo, plain):
    read = mo.ui.run_button(label="read the step")
    jump = mo.ui.button(label="goto 5", on_click=lambda _: plain.goto(5))
    mo.hstack([read, jump])
    return jump, read


@app.cell
def _(mo, plain, read):
    mo.stop(not read.value)
    mo.md(f"plain: python step {plain.step}")
    return


if __name__ == "__main__":
    app.run()
