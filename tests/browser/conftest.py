"""The browser tier: a real headless Chromium (Debian's, driven by Python Playwright).

Playwright's own browser download does not work here, so we launch Debian's
``/usr/bin/chromium``.  Without it (or without Playwright) every test here is
skipped with the reason.  Run with ``pytest tests/browser -m browser``.
"""

from __future__ import annotations

import os
import shutil

import pytest

CHROMIUM = os.environ.get("MINIGRAD_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser():
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="Python Playwright is not installed (pip install playwright)"
    )
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium)")
    with sync_api.sync_playwright() as p:
        try:
            b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, timeout=30_000)
        except Exception as exc:  # a broken install: say why, do not error the tier
            pytest.skip(f"Chromium at {CHROMIUM} did not start: {str(exc).splitlines()[0]}")
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(15_000)
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    pg.errors = errors
    try:
        yield pg
    finally:
        context.close()
