"""Tests of ``viz.stepper``."""
