"""Tests of ``viz.render``."""
