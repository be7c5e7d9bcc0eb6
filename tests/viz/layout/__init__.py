"""Tests of ``viz.layout``."""
