# Developer and CI entry points. The virtualenv is made on first use and reinstalled
# whenever pyproject.toml changes (the stamp file records the last install).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

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

demo: $(STAMP)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" bash scripts/demo.sh

bench: $(STAMP)
	$(PY) bench/bench.py
