# Developer and CI entry points. The virtualenv is made on first use and reinstalled
# whenever pyproject.toml changes (the stamp file records the last install). The
# project's modules are compiled to bytecode at install, so that no command has to
# compile them (about 30 ms a command) where it may not write its cache.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DEMO_STAMP := $(VENV)/.installed-demo

.PHONY: messages test demo install serve bench bench-archive bench-load bench-rating bench-merkle bench-serve bench-memory venv

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -e '.[test]'
	$(PY) -m compileall -q ledger projections cli web
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
	$(PY) -m compileall -q ledger projections cli web
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" bash scripts/demo.sh

# The live service on a demo club (a pulka under way, a director, an arbiter, the table's
# link) in serve-demo.db, listening on every address so that phones on the club's network
# reach it: this machine's address on the network is printed, the table's scorer link and
# the spectators' page each with a QR code, and where to sign in. Over TLS with the club's
# own certificate authority (--club-tls, made in serve-demo.db.tls/ on first use), so that
# the scorer's page works offline on the club's network too: the club's certificate is
# printed first, with its QR code and fingerprint, to install once per phone.
# SERVE_ARGS passes options through: SERVE_ARGS='--port 8080', '--host 127.0.0.1' for this
# machine alone, '--no-club-tls' for plain HTTP (no offline app but at 127.0.0.1).
serve: $(DEMO_STAMP)
	$(PY) -m compileall -q ledger projections cli web
	$(VENV)/bin/pulka --db serve-demo.db serve demo --club-tls $(SERVE_ARGS)

# pulka on the PATH: a link to this checkout's script (.venv/bin/pulka, pulka alone, as
# for the demo) in BINDIR, by default ~/.local/bin, which most systems put on the PATH.
# The link points into the checkout: move it, and run `make install` again.
BINDIR ?= $(HOME)/.local/bin
install: $(DEMO_STAMP)
	mkdir -p "$(BINDIR)"
	ln -sf "$(abspath $(VENV))/bin/pulka" "$(BINDIR)/pulka"
	@echo "pulka linked into $(BINDIR)"
	@case ":$$PATH:" in *":$(BINDIR):"*) ;; *) echo "$(BINDIR) is not on your PATH: add it, e.g. in ~/.profile: export PATH=\"$(BINDIR):\$$PATH\"" ;; esac

# BENCH_ARGS passes options through, e.g. make bench BENCH_ARGS=--quick, or --cpu for CPU
# time instead of the wall clock on a loaded machine (SQLite); with PULKA_BENCH_POSTGRES set
# to a postgresql:// address, PostgreSQL is measured too.
bench: $(STAMP)
	$(PY) -m compileall -q ledger projections cli web
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

# The live service under load: 30 tables recording through HTTP with 200 spectators
# following (BENCH_ARGS=--quick: 5 and 20); PostgreSQL too with PULKA_BENCH_POSTGRES.
# Then the server CPU of a read at a random point of a 2,000-event pulka (bench/reads.py).
bench-serve: $(STAMP)
	$(PY) -W ignore::DeprecationWarning bench/serve.py $(BENCH_ARGS)
	$(PY) -W ignore::DeprecationWarning bench/reads.py $(filter --quick,$(BENCH_ARGS))

# The club log's Merkle tree on a store of 1,000,000 events: root and proof times beside
# the machine's limits (BENCH_ARGS=--events N for another size; PULKA_BENCH_POSTGRES too).
bench-merkle: $(STAMP)
	$(PY) bench/merkle.py $(BENCH_ARGS)

# Peak memory of import, settle, verify, head, export, verify --file and --against on a
# legal log of 1,873,783 events (200 MB), each command its own process (BENCH_ARGS=--quick
# for 200,000 events; --db postgresql://... for PostgreSQL; --keep DIR keeps the log).
# Then verify of a club's store of 1,000,000 events, in its pool and in one process
# (--only club for that alone; --club-events N for another size; --runs N of each).
bench-memory: $(STAMP)
	$(PY) -m compileall -q ledger projections cli
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) bench/memory.py $(BENCH_ARGS)

# The message catalogues (ledger/vocabulary/locale): the texts people read extracted from
# the code into pulka.pot, merged into each language's .po (translate there), compiled
# to the .mo that gettext reads. The compiled .mo is committed: a plain install needs no
# Babel. tests/test_language.py checks that both are up to date.
LOCALE := ledger/vocabulary/locale
BABEL_KEYWORDS := -k _ -k N_ -k ngettext:1,2 -k said
messages: $(STAMP)
	$(VENV)/bin/pybabel extract -F babel.cfg $(BABEL_KEYWORDS) --no-location --sort-output --project=pulka \
		--copyright-holder="the pulka authors" -o $(LOCALE)/pulka.pot .
	$(VENV)/bin/pybabel update -i $(LOCALE)/pulka.pot -d $(LOCALE) -D pulka --no-fuzzy-matching
	$(VENV)/bin/pybabel compile -d $(LOCALE) -D pulka
