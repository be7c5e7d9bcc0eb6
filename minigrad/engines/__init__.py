"""``minigrad.engines``: the backward loops that run, and the one place that picks.

``core/backward.py`` is the spec; these are what ``c.backward()`` runs:

* ``choose.py``        which loop runs (the only reader of the switches)
* ``switches.py``      the counts it reads: hooked nodes, packed records, in-place changes
* ``fast.py``          the reference loop with shortcuts
* ``shortcuts.py``     those shortcuts as data, each with the tests that prove it
* ``ready_queue.py``   PyTorch's order: dependency counts and a ready queue
* ``hooked.py``        gradient hooks (``register_hook``), as the reference loop's steps
* ``higher_order.py``  ``create_graph=True``: the rules run on nodes and build a graph
* ``inplace.py``       refusing a graph whose saved arrays changed in place
* ``output_grads.py``  the gradient of a multi-output op's record
"""
