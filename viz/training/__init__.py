"""Training watched live: ``viz.TrainingView`` and what ``fit(..., live=True)`` shows.

Read in this order:

1. ``layer_stats.py``: the numbers, per layer: weight and gradient histograms and the
   update-to-weight ratio, measured from the model's real parameters;
2. ``decision_grid.py``: a 2-D classifier's class on a grid of points;
3. ``svg_panels.py``: each panel as a small, self-contained SVG string (no matplotlib,
   so a frame costs milliseconds);
4. ``graph_panel.py``: the model's graph with modules boxed (``viz.draw``), laid out
   once, its edges recoloured by gradient norm on every frame;
5. ``live_output.py``: where a frame goes: a Jupyter display handle updated in place,
   ``marimo.output.replace``, or nowhere (a script);
6. ``training_view.py``: ``TrainingView``, which ties them together.

The seam with ``minigrad``: ``minigrad`` never imports ``viz``. ``fit(live=...)`` takes
any object with ``update(step, loss=, acc=)`` and ``close()``; ``live=True`` asks
``minigrad.fitting`` for a registered live view factory. ``import viz`` registers one when
``minigrad`` is already loaded (importing ``minigrad.fitting``, nothing of this package
until a view is made), ``training_view.py`` registers ``TrainingView`` when it is
imported, and an installed kit declares it as the ``minigrad.live_views`` entry point,
which ``fit`` reads when nothing is registered.
"""
