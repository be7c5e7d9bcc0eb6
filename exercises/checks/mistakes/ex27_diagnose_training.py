"""Wrong answers that ``checks/ex27_diagnose_training.py`` must reject (lesson 17)."""

from __future__ import annotations

import numpy as np

from ._registry import mistake


def _dead(summary, frames=slice(-3, None)):
    return any(all(d == 1.0 for d in summary["dead"][n][frames]) for n in summary["layers"])


def _vanishing(summary, first=0, last=-1):
    layers, g = summary["layers"], summary["grad_abs_mean"]
    return np.median(g[layers[first]]) < np.median(g[layers[last]]) / 100


def _hot(summary, median=np.nanmedian, limit=3e-2):
    return np.median([median(summary["ratio"][n]) for n in summary["layers"]]) > limit


def _rules(dead=_dead, vanishing=_vanishing, hot=_hot):
    def diagnose(summary):
        if dead(summary):
            return "dead relu"
        if vanishing(summary):
            return "vanishing gradients"
        if hot(summary):
            return "lr too high"
        return "fine"

    return diagnose


@mistake("ex27", "diagnose", "np.median over ratios holding a nan", "nanmedian")
def _plain_median(summary):
    return _rules(hot=lambda s: _hot(s, median=np.median))(summary)


@mistake("ex27", "diagnose", "any zero gradient counted as dead", "ALL of them")
def _any_zero(summary):
    return _rules(dead=lambda s: any(max(s["dead"][n][-3:]) > 0 for n in s["layers"]))(summary)


@mistake("ex27", "diagnose", "tiny gradients counted as dead", "not zero")
def _tiny_is_dead(summary):
    return _rules(dead=lambda s: any(min(s["grad_abs_mean"][n][-3:]) < 1e-5
                                     for n in s["layers"]))(summary)


@mistake("ex27", "diagnose", "checks vanishing before dead", "check for dead layers first")
def _vanishing_first(summary):
    if _vanishing(summary):
        return "vanishing gradients"
    return _rules()(summary)


@mistake("ex27", "diagnose", "looks at the first sample for dead layers", "last three")
def _first_frame(summary):
    return _rules(dead=lambda s: _dead(s, frames=slice(0, 1)))(summary)


@mistake("ex27", "diagnose", "takes the last layer for the first", "lists the input first")
def _reversed_layers(summary):
    return _rules(vanishing=lambda s: _vanishing(s, first=-1, last=0))(summary)


@mistake("ex27", "diagnose", "the 1e-3 guide as the limit", "3e-2")
def _guide_as_limit(summary):
    return _rules(hot=lambda s: _hot(s, limit=1e-3))(summary)


@mistake("ex27", "diagnose", "reads the loss only", "expected")
def _loss_only(summary):
    loss = summary["loss"]
    return "fine" if loss[-1] < 0.5 * loss[0] else "lr too high"


@mistake("ex27", "diagnose", "answers in other words", "exactly")
def _other_words(summary):
    return {"dead relu": "dead ReLU layer"}.get(_rules()(summary), _rules()(summary))
