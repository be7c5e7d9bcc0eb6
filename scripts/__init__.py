"""Contributor and set-up tools (run as ``python scripts/NAME.py``; a package so the
tests can import them)."""
