"""The test suite, in folders that mirror the package (a package itself, so that
``from tests._helpers import leaf`` works and two folders may share a file name)."""
