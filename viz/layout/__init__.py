"""The built-in layout: where each box goes, in pure Python, when graphviz's ``dot`` is
not installed.

Read ``layered.py`` first (the four steps, Sugiyama's recipe), then the two steps that
have a module of their own: ``rank.py`` (step 1, network simplex ranks) and ``crossings.py``
(step 3, the order within each rank).
"""
