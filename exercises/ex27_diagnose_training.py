"""Exercise 27 · diagnose a training run from its live view's numbers (lesson 17).

``diagnose(summary)``: say what is wrong with a training run, reading only what its
``viz.TrainingView`` recorded, ``view.summary()``, a dict of plain lists:

* ``summary["layers"]``: the layers' names, **input first** (``["fc1", "fc2", "fc3"]``);
* ``summary["frame_steps"]``: the steps at which the view took a sample (``[0, 10, ...]``);
* ``summary["loss"]``: the loss at every step;
* per layer, one value per sample: ``summary["ratio"][name]``, the update-to-weight
  ratio std(Δw) / std(w) (``nan`` at the first sample: no update seen yet);
  ``summary["dead"][name]``, the fraction of the layer's gradients that are exactly 0;
  ``summary["grad_abs_mean"][name]``, the mean |gradient|; and ``"grad_std"``,
  ``"grad_norm"``, ``"weight_std"``.

Return one of four strings, checking in this order (the first that applies):

1. ``"dead relu"``: some layer's gradients are all exactly zero (``dead == 1.0``) at each
   of the **last three** samples. A ReLU layer always has some zero gradients (units off
   for the whole batch); a dead one has nothing else, and no gradient passes through it.
2. ``"vanishing gradients"``: the first layer's mean |gradient| is less than 1/100 of the
   last layer's (each the median over the samples). Small, but not zero: that was rule 1.
3. ``"lr too high"``: the update ratios are large: per layer the median over the samples,
   ignoring ``nan``; then the median of those over the layers; above ``3e-2`` (thirty
   times the 1e-3 guide: healthy small runs sit within a factor of ten of it).
4. ``"fine"`` otherwise.

``numpy`` is allowed (``np.nanmedian`` ignores ``nan``; ``np.median`` does not).

Check it:  python -m exercises ex27   (in a notebook: ``check("ex27")``)
"""

__all__ = ["diagnose"]


def diagnose(summary: dict) -> str:
    """``"dead relu"``, ``"vanishing gradients"``, ``"lr too high"`` or ``"fine"``."""
    raise NotImplementedError
