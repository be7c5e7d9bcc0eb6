"""A marimo notebook training a small MLP under viz.TrainingView (for test_marimo_training_view)."""

import marimo

app = marimo.App()


@app.cell
def _():
    import numpy as np

    import minigrad.nn.functional as F
    import viz
    from minigrad import Tensor, nn
    from minigrad.data import make_moons

    X, y = make_moons(n=100, noise=0.1, seed=1)
    g = np.random.default_rng(0)
    net = nn.Sequential(nn.Linear(2, 16, rng=g), nn.ReLU(), nn.Linear(16, 2, rng=g))
    view = viz.TrainingView(net, every=5, data=(X, y), interval=0)
    for step in range(30):
        out = net(Tensor(X))
        loss = F.cross_entropy(out, y)
        net.zero_grad()
        loss.backward()
        for p in net.parameters():
            p.data -= 0.5 * p.grad
        view.update(step, loss=loss, acc=float((out.data.argmax(1) == y).mean()))
    view.close()
    return


if __name__ == "__main__":
    app.run()
