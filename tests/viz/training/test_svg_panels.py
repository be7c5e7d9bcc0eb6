"""Panels are named SVG elements whose marks follow the data."""

import re

import numpy as np

from viz.training.decision_grid import Grid
from viz.training.svg_panels import boundary_map, histogram, line_chart, ratio_chart


def test_histogram_draws_one_bar_per_nonempty_bin_with_heights_in_proportion():
    counts, edges = np.array([1, 0, 4, 2]), np.linspace(-1, 1, 5)
    svg = histogram("weights fc1", "fc1 weights", counts, edges)
    assert 'data-panel="weights fc1"' in svg
    heights = [float(h) for h in re.findall(r'class="bar"[^>]*height="([0-9.]+)"', svg)]
    assert len(heights) == 3
    assert heights[1] / heights[0] == 4.0 and heights[2] / heights[0] == 2.0


def test_line_chart_has_one_polyline_per_series_with_a_point_per_value():
    svg = line_chart("loss", "loss", [0, 1, 2, 3], {"loss": [1.0, 0.5, 0.4, 0.2],
                                                    "val": [1.1, 0.9, 0.8, 0.7]})
    lines = re.findall(r'<polyline class="series" points="([^"]+)"', svg)
    assert [len(p.split()) for p in lines] == [4, 4]
    ys = [float(pt.split(",")[1]) for pt in lines[0].split()]
    assert ys == sorted(ys)  # a falling loss draws lower and lower (svg y grows down)


def test_ratio_chart_is_log_scale_with_the_guide_line():
    svg = ratio_chart([0, 10, 20], {"fc1": [float("nan"), 1e-3, 1e-1], "fc2": [1e-5, 1e-4, 1e-3]})
    assert 'data-panel="ratio"' in svg and 'class="guide"' in svg
    guide_y = float(re.search(r'class="guide"[^>]*y1="([0-9.]+)"', svg).group(1))
    fc2 = re.findall(r'<polyline class="series" points="([^"]+)"', svg)[1]
    ys = [float(pt.split(",")[1]) for pt in fc2.split()]
    # equal steps in log10 are equal steps on the page, and 1e-3 sits on the guide
    assert abs((ys[0] - ys[1]) - (ys[1] - ys[2])) < 0.2
    assert abs(ys[2] - guide_y) < 0.2
    first = re.findall(r'<polyline class="series" points="([^"]+)"', svg)[0]
    assert len(first.split()) == 2  # the nan (no update seen yet) is left out


def test_boundary_map_runs_cover_each_row_and_points_are_drawn():
    classes = np.array([[0, 0, 1], [1, 1, 1]])
    grid = Grid(np.array([0.0, 1.0, 2.0]), np.array([0.0, 1.0]), classes)
    svg = boundary_map(grid, np.array([[0.0, 0.0], [2.0, 1.0]]), np.array([0, 1]))
    assert svg.count('class="cell"') == 3  # row 0: two runs, row 1: one run
    assert svg.count('class="point"') == 2


def test_a_long_curve_is_averaged_down_to_two_points_per_pixel_column():
    from viz.training.svg_panels import MAX_POINTS

    steps = np.arange(5000)
    svg = line_chart("loss", "loss", steps, {"loss": 1.0 / (1.0 + steps)})
    points = re.search(r'<polyline class="series" points="([^"]+)"', svg).group(1).split()
    assert len(points) == MAX_POINTS
