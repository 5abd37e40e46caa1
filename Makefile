# Developer and CI entry points. The virtualenv is made on first use and reinstalled
# whenever pyproject.toml changes (the stamp file records the last install).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DEMO_STAMP := $(VENV)/.installed-demo

.PHONY: test demo bench venv

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -e '.[test]'
	touch $(STAMP)

# PYTEST_ARGS passes options through, e.g. make test PYTEST_ARGS='-k tamper -x'.
test: $(STAMP)
	$(PY) -m mypy
	$(PY) -m pytest $(PYTEST_ARGS)

# The demo needs pulka alone: no test tools (a venv made by `make test` has it already).
$(DEMO_STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	test -f $(STAMP) -a $(STAMP) -nt pyproject.toml || $(PY) -m pip install -e .
	touch $(DEMO_STAMP)

demo: $(DEMO_STAMP)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" bash scripts/demo.sh

bench: $(STAMP)
	$(PY) bench/bench.py
