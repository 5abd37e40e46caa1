# Developer and CI entry points. The virtualenv is made on first use and reinstalled
# whenever pyproject.toml changes (the stamp file records the last install). The
# project's modules are compiled to bytecode at install, so that no command has to
# compile them (about 30 ms a command) where it may not write its cache.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DEMO_STAMP := $(VENV)/.installed-demo

.PHONY: test demo bench bench-archive bench-load bench-rating bench-merkle bench-memory venv

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -e '.[test]'
	$(PY) -m compileall -q ledger projections cli
	touch $(STAMP)

# The suite runs on every core (pytest-xdist; each test has its own store or schema).
# PYTEST_ARGS passes options through, e.g. make test PYTEST_ARGS='-k tamper -x';
# PYTEST_WORKERS=0 runs it in one process.
PYTEST_WORKERS ?= auto
test: $(STAMP)
	$(PY) -m mypy
	$(PY) -m pytest -n $(PYTEST_WORKERS) --dist worksteal $(PYTEST_ARGS)

# The demo needs pulka alone: no test tools (a venv made by `make test` has it already).
$(DEMO_STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	test -f $(STAMP) -a $(STAMP) -nt pyproject.toml || $(PY) -m pip install -e .
	touch $(DEMO_STAMP)

demo: $(DEMO_STAMP)
	$(PY) -m compileall -q ledger projections cli
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" bash scripts/demo.sh

# BENCH_ARGS passes options through, e.g. make bench BENCH_ARGS=--quick; with
# PULKA_BENCH_POSTGRES set to a postgresql:// address, PostgreSQL is measured too.
bench: $(STAMP)
	$(PY) -m compileall -q ledger projections cli
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) bench/bench.py $(BENCH_ARGS)

# The player views of an archive of 1,000 pulkas (BENCH_ARGS=--quick for 100) and thirty
# scorers at once (PostgreSQL: PULKA_TEST_POSTGRES or BENCH_ARGS=--db postgresql://...).
bench-archive: $(STAMP)
	$(PY) bench/archive.py $(BENCH_ARGS)

bench-load: $(STAMP)
	$(PY) bench/load.py $(BENCH_ARGS)

# The rating and statistics on the archive of bench-archive (BENCH_ARGS=--quick for 100 pulkas).
bench-rating: $(STAMP)
	$(PY) bench/rating.py $(BENCH_ARGS)

# The club log's Merkle tree on a store of 1,000,000 events: root and proof times beside
# the machine's limits (BENCH_ARGS=--events N for another size; PULKA_BENCH_POSTGRES too).
bench-merkle: $(STAMP)
	$(PY) bench/merkle.py $(BENCH_ARGS)

# Peak memory of import, settle, verify, head, export, verify --file and --against on a
# legal log of 1,873,783 events (200 MB), each command its own process (BENCH_ARGS=--quick
# for 200,000 events; --db postgresql://... for PostgreSQL; --keep DIR keeps the log).
bench-memory: $(STAMP)
	$(PY) -m compileall -q ledger projections cli
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) bench/memory.py $(BENCH_ARGS)
