"""One step-through in marimo (driven by tests/browser/test_frontends.py)."""

import marimo

app = marimo.App()


@app.cell
def _():
    import viz

    def neuron(a, b, c):
        e = a * b
        e.label = "e"
        return (e + c).tanh()

    stepper = viz.step_through(neuron, 2.0, -3.0, 10.0)
    stepper  # noqa: B018  (a cell shows its last expression)
    return (stepper,)


if __name__ == "__main__":
    app.run()
