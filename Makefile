# minigrad-kit: two commands on a fresh machine.
#   make lab    set up .venv (and Debian graphviz if possible), open the lessons in JupyterLab
#   make test   same set-up, then every test tier
# Both are idempotent and quick once set up.

SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.minigrad-installed
TEST_STAMP := $(VENV)/.minigrad-test-extras
PYTEST := $(PY) -m pytest
TIER := scripts/tier.sh
WORKSPACE ?= workspace

.DEFAULT_GOAL := help
.PHONY: help setup lab test test-unit test-exercises test-notebooks test-browser nb-exec bench lint system-deps clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  make %-15s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	@# (a venv without pip, left by a failed attempt, is made again rather than reused)
	@$(PY) -m pip --version >/dev/null 2>&1 || { rm -rf $(VENV); \
		PYTHON=$(PYTHON) scripts/system_deps.sh python3-venv && $(PYTHON) -m venv $(VENV); }
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	@touch $(STAMP)

setup: $(STAMP) system-deps ## create .venv with the kit and its dev/lab extras (idempotent)

# the test tiers also want the optional extras: PyTorch (the oracle tests; its CPU build)
# and numexpr (jit's second backend); students' `make lab` does not install them
$(TEST_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e ".[dev,jit,torch]"
	@touch $(TEST_STAMP)

system-deps: ## install Debian graphviz (dot) when missing and we are root or have sudo
	@scripts/system_deps.sh graphviz || echo "note: going on without graphviz: graphs are drawn by the built-in layout"

lab: setup ## open your own copy of the lessons (workspace/, made on first run, never overwritten)
	@# (trusted, so that the saved step-through players run when a lesson is opened; a
	@# workspace copy is the same file, so it is trusted too)
	@$(VENV)/bin/jupyter trust notebooks/*.ipynb > /dev/null
	@$(PY) scripts/workspace.py sync --workspace $(WORKSPACE)
	@$(PY) scripts/workspace.py lab-settings > /dev/null
	@# (the pre-save hook keeps a saved lesson free of widget views whose state is not saved;
	@# the venv first on PATH, so that `python -m exercises ex04` in a Lab terminal runs it,
	@# and the terminal's shell named, since Lab run without a tty starts a login shell,
	@# whose /etc/profile resets PATH)
	PATH=$(abspath $(VENV))/bin:$$PATH MINIGRAD_WORKSPACE=$(abspath $(WORKSPACE)) \
	PYTHONPATH=$(CURDIR)$${PYTHONPATH:+:$$PYTHONPATH} $(VENV)/bin/jupyter lab \
		--ServerApp.root_dir=$(WORKSPACE) \
		--ContentsManager.pre_save_hook=scripts.lab_save.drop_orphan_widget_views \
		--ServerApp.terminado_settings=shell_command=$${SHELL:-/bin/sh} \
		$(LAB_ARGS) $$( [ "$$(id -u)" = 0 ] && echo --allow-root )

test: setup $(TEST_STAMP) ## run every test tier (installs the torch and jit extras): unit, exercises, notebooks (nbval), browser
	@scripts/system_deps.sh chromium || true
	@$(TIER) --reset
	@$(TIER) unit      $(PYTEST) tests -m "not browser" -q
	@$(TIER) exercises $(PYTEST) exercises --solutions -q -p no:cacheprovider
	@$(TIER) notebooks $(PYTEST) -p nbval --nbval --nbval-current-env --nbval-sanitize-with notebooks/sanitize.cfg notebooks -q -p no:cacheprovider
	@$(TIER) browser   $(PYTEST) tests/browser -m browser -q -p no:cacheprovider
	@# the viz and browser tests again with graphviz's dot hidden: the built-in layout draws
	@# (runs that start a notebook server (JupyterLab, Notebook 7, marimo) or nbconvert are
	@# left out: they take minutes and show the same SVG)
	@$(TIER) nodot     env MINIGRAD_LAYOUT=builtin $(PYTEST) tests/viz tests/browser -q -p no:cacheprovider \
		-k "not jupyterlab and not survives_nbconvert and not notebook_7 and not marimo and not lab_workspace and not lesson_17"
	@$(TIER) --summary

test-unit: setup ## unit and property tests only
	$(PYTEST) tests -m "not browser" -q

test-exercises: setup ## check the exercises against the reference solutions
	$(PYTEST) exercises --solutions -q

test-notebooks: setup ## run the lessons under strict nbval
	$(PYTEST) -p nbval --nbval --nbval-current-env --nbval-sanitize-with notebooks/sanitize.cfg notebooks -q

test-browser: setup ## the headless-Chromium tier
	$(PYTEST) tests/browser -m browser -q

nb-exec: setup ## re-execute every lesson in place and clean its metadata (for contributors; refuses uncommitted lessons)
	$(PY) scripts/nb_exec.py notebooks/*.ipynb

bench: setup ## run every benchmark (installs micrograd for scalar.py; PyTorch columns appear if torch is installed; slow)
	$(PY) -m pip install --quiet -e ".[bench]"
	@for b in scalar hooks tensor_ops mlp cnn higher_order transforms jit checkpoint memory stepper; do \
		echo "== benchmarks/$$b.py"; $(PY) benchmarks/$$b.py || exit 1; done

lint: setup ## ruff
	$(VENV)/bin/ruff check minigrad viz tests exercises benchmarks scripts

clean: ## remove the venv and caches
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis .tiers
