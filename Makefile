# Developer and CI entry points. The virtualenv is made on first use and reinstalled
# whenever pyproject.toml changes (the stamp file records the last install).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: test demo bench bench-archive bench-load venv

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

# The archive of 1,000 pulkas (BENCH_ARGS=--quick for 100) and thirty scorers at once
# (PostgreSQL: PULKA_TEST_POSTGRES or BENCH_ARGS=--db postgresql://...).
bench-archive: $(STAMP)
	$(PY) bench/archive.py $(BENCH_ARGS)

bench-load: $(STAMP)
	$(PY) bench/load.py $(BENCH_ARGS)
