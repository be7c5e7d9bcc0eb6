"""nbval settings for the lessons.

Outputs are compared strictly, except rendered graphs: graphviz's SVG (inline
as text/html or as image/svg+xml) carries coordinates that differ between dot
builds, so those MIME types are skipped.  Every graph also prints a
deterministic text/plain repr (e.g. ``<Graph 7 nodes, 8 edges>``), which *is*
compared, so a change in a lesson's graph still fails the run.
"""

SKIP = ("image/svg+xml", "text/html")


def pytest_collectstart(collector):
    if getattr(collector, "path", None) is not None and collector.path.suffix == ".ipynb":
        if hasattr(collector, "skip_compare"):
            collector.skip_compare = tuple(collector.skip_compare) + SKIP
