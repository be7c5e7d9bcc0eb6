"""The stepper: a recorded computation replayed one step at a time, in a notebook widget
or a standalone HTML page (one front end: ``viz/assets/player.js`` runs both).

Read the modules in this order:

* ``recording.py``: what ``viz.step_through`` records (the forward pass, one or two
  backward passes) on one ``minigrad.record()`` tape;
* ``torch_recording.py``: the same events from PyTorch's own backward (hooks on every
  autograd Node), for ``viz.step_through`` of torch tensors;
* ``torch_capture.py``: the forward values of a torch function, captured as it runs (a
  ``TorchFunctionMode``), which PyTorch's Nodes do not keep;
* ``replay.py``: which recorded events a replay shows, and as what;
* ``narration.py``: each step in words (the panel);
* ``frames.py``: ``Frames``, the tape turned into steps: classes per element, gradients
  held, panel text (the heart of the stepper);
* ``engine_notes.py``: a ready-queue pass's pending counts and queue, and hook steps;
* ``checkpoint_steps.py``: what a checkpointed block's recompute says;
* ``batch_steps.py``: what a vmapped function's steps say (which axis is the batch, what
  is not mapped, one seed per example; each node's two shapes: ``viz.render.batches``);
* ``tangent_frames.py``: ``TangentFrames``, forward mode's tangents as frames;
* ``cursor.py``: ``StepperState``, the cursor over the frames;
* ``memory_strip.py``: the saved bytes alive at every step;
* ``template.py``: the SVG laid out once and restyled per step, the state stylesheet;
* ``node_info.py``: what a click on a node shows (value, formula, saved values);
* ``page.py``: the player's markup and data, and the standalone HTML page, its panel
  and legend (CSS and the player's one JavaScript module: ``viz/assets/``);
* ``widgets.py``: the notebook widget, an anywidget running that same module;
* ``stepper.py``: ``Stepper`` and ``step_through``, which put it all together;
* ``player.py``: ``viz.export_html``, the step-through as one HTML file.
"""
