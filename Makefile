# Every target works from a fresh clone: `make demo` and `make test` install on first use.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# nbgrader's gradebook set-up runs `alembic`, found through PATH.
export PATH := $(CURDIR)/$(BIN):$(PATH)
N ?= 200

.PHONY: install system-deps test test-fast mutate mutate-similarity docs demo hub release bench bench-compare bench-watch bench-cluster bench-costs bench-hub bench-lms bench-similarity lint clean

# The package's bytecode is written here, once: the environment may set PYTHONDONTWRITEBYTECODE, and
# an editable install is never compiled, so every `autograder` process (and every grading worker and
# sandbox zygote it starts) would otherwise compile the whole package from source again.
install: $(STAMP)
	@$(BIN)/python -m compileall -q autograder
	@if command -v npm >/dev/null; then $(MAKE) -s --no-print-directory node_modules/.installed; \
	 else echo "make: npm not found, so no configurable-http-proxy for \`autograder hub\`: apt-get install npm, then make install"; fi

# rfc3987-syntax comes with jupyter_events (jsonschema[format-nongpl]) and builds 38 Earley parsers when it is
# imported, which jsonschema does on every `import nbformat`: 2.5 CPU-seconds in each nbgrader, autograder and
# Jupyter process, for IRI formats no notebook or Jupyter schema uses. Without it jsonschema skips those two
# formats (python-jsonschema/jsonschema#1428; the package is unmaintained). docs, "Set up a course".
# uv installs what pip would (the same wheels, from PyPI) in seconds from its cache, where pip takes a minute
# of the test suite's budget on every fresh clone; the tests use it too (tests/test_outside_course.py).
UV_REQUIREMENT := uv>=0.5,<1
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet '$(UV_REQUIREMENT)'
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -e '.[dev,cluster]'
	$(BIN)/uv pip uninstall --quiet --python $(BIN)/python rfc3987-syntax
	@touch $(STAMP)

# Debian's packages the tests need, installed only when missing: headless Chromium renders the class report and
# drives JupyterLab (Playwright uses it, never a browser of its own); a PostgreSQL server (binaries in
# /usr/lib/postgresql/<version>/bin) holds the gradebook in the tests that run on a database server
# (tests/postgres.py starts its own, in a temporary folder); npm installs axe-core for the accessibility audits.
system-deps:
	@missing=""; \
	[ -x /usr/bin/chromium ] || missing=" chromium"; \
	ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || missing="$$missing postgresql"; \
	command -v npm >/dev/null || missing="$$missing npm"; \
	if [ -n "$$missing" ]; then \
	    if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	        echo "make: installing$$missing (apt-get)"; \
	        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	    else \
	        echo "make: the tests need$$missing: sudo apt-get install$$missing" >&2; exit 1; \
	    fi; \
	fi

# Both kinds: the unit tests (tests/unit/) and the end-to-end ones that build courses and grade them, test files
# spread over TEST_WORKERS processes (tests/conftest.py keeps each file, and the files sharing the graded class,
# on one); the slowest 25 tests are listed at the end, to keep the suite within its budget (docs, "Tests").
TEST_WORKERS ?= 3
test: install system-deps node_modules/.installed
	$(BIN)/ruff check autograder tests source
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder --durations=25

# axe-core, which the browser tests inject into pages to audit their accessibility, and configurable-http-proxy,
# JupyterHub's proxy for `autograder hub` (package.json pins both).
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --silent
	@touch $@

# The unit tests alone, in seconds: no nbgrader run, no sandbox, no database server.
test-fast: install
	$(BIN)/python -m pytest -q tests/unit

# Mutation testing of the grade arithmetic (issue 39): mutmut mutates deadlines/, grading/scoring.py and
# grades/arithmetic.py ([tool.mutmut] in pyproject.toml) one change at a time, in a copy of the package in mutants/,
# and runs their unit tests on each; then the share of mutants killed, per module, and a failure below
# MUTATE_TARGET percent. Not part of `make test`: 1452 mutants, half an hour on 2 busy cores, at the lowest
# priority. Each run starts from a fresh copy (mutmut keeps unmutated files it copied before, which would go stale).
MUTATE_TARGET ?= 90
mutate: install
	rm -rf mutants
	nice -n 19 $(BIN)/mutmut run
	$(BIN)/python -m autograder.devtools.mutation_rates --target $(MUTATE_TARGET)

# The same for the similarity modules (issue 43): evidence.py, winnowing.py, code_tokens.py, numpy_spellings.py
# against their unit tests, in a scratch copy whose pyproject.toml is autograder/devtools/mutate_similarity.toml.
mutate-similarity: install
	rm -rf build/mutate-similarity && mkdir -p build/mutate-similarity
	cp -r autograder tests release source docs nbgrader_config.py build/mutate-similarity/
	cp autograder/devtools/mutate_similarity.toml build/mutate-similarity/pyproject.toml
	cd build/mutate-similarity && nice -n 19 $(abspath $(BIN))/mutmut run
	cd build/mutate-similarity && $(abspath $(BIN))/python -m autograder.devtools.mutation_rates --target $(MUTATE_TARGET)

# The documentation site, from docs/ into build/docs/ (open build/docs/index.html): any warning fails the build, and
# -n reports every reference that points nowhere, a broken link between pages included. `make test` builds it too
# (tests/test_docs.py), with its "Try it" blocks run on a scratch course.
docs: install
	$(BIN)/sphinx-build -W --keep-going -n -q -b html docs build/docs

lint: install
	$(BIN)/ruff check autograder tests source

# The whole loop, as root: a scratch course in demo-hub/ with both assignments released, on a real JupyterHub
# (`autograder hub`'s, http://127.0.0.1:8000, run by devtools/demo_loop.py) entered from the demo LMS
# (http://127.0.0.1:8001, the one URL it prints) by LTI 1.3 (docs, "JupyterHub and LTI 1.3").
# Checked before anything is installed: the students' and instructors' servers (other OS users) pass through every
# folder above the clone (demo-hub/ is in it), which a 0700 home folder closes.
hub:
	@d='$(CURDIR)'; while [ "$$d" != / ]; do \
	  case "$$(stat -c %A "$$d")" in *[xt]) ;; *) echo "make hub: $$d keeps other users out, so the students' servers cannot reach this clone: clone it where every user may pass (e.g. /srv/autograder), or chmod o+x $$d" >&2; exit 1;; esac; \
	  d=$$(dirname "$$d"); done
	@$(MAKE) --no-print-directory install
	$(BIN)/python -m autograder.devtools.hub_demo

release: install
	$(BIN)/autograder release

demo: install
	$(BIN)/python -m autograder.devtools.demo

bench: install
	$(BIN)/python -m autograder.devtools.bench --n $(N)

# Where one submission's grading time goes (trusted side, sandbox user and kernel time, page faults), and what
# the trusted self-check and judging exercises on their own each add; N=100 unless given on the command line.
bench-costs: install
	$(BIN)/python -m autograder.devtools.bench_costs $(if $(filter command line,$(origin N)),--n $(N),)

# This checkout against another (OTHER=path of a checkout with its own `make install`), runs alternated.
bench-compare: install
	$(BIN)/python -m autograder.devtools.bench_compare $(OTHER) $(if $(filter command line,$(origin N)),--n $(N),)

# The deadline spike: 150 students hand in twice through `nbgrader submit` within 10 minutes against a running
# `autograder watch`, hostile students beside them (docs, "How it grades, and what it guarantees").
bench-watch: install
	$(BIN)/python -m autograder.devtools.deadline_bench

# Issue 30: from a graded submission to its score in an LTI platform's gradebook (push --follow), p50/p95 at 20
# students, the platform up and then down for a minute (DOWN=seconds to change it).
bench-lms: install
	$(BIN)/python -m tests.lms.outbox_bench $(if $(DOWN),--down $(DOWN),)

# The same class graded by the local pool and by a Dask LocalCluster, on SQLite and on PostgreSQL (N=2000 unless
# given on the command line: `make bench-cluster N=200`).
bench-cluster: install system-deps
	$(BIN)/python -m autograder.devtools.cluster_bench $(if $(filter command line,$(origin N)),$(N),2000)

# As many students as this machine holds spawn, fetch and submit on `autograder hub`, driven through its REST API:
# spawn and feedback times, memory per student server (at most 40 students unless N is given: `make bench-hub N=5`).
bench-hub: install node_modules/.installed
	$(BIN)/python -m autograder.devtools.hub_bench $(if $(filter command line,$(origin N)),--students $(N),)

# Labelled classes (honest students, planted copies each disguised one way) compared by `autograder similarity`:
# seconds, precision and recall of the planted pairs (docs, "Academic integrity: similarity"); N=500 unless
# given on the command line. Dolos runs beside it on the same classes: installed here only, never by `make
# install` or `make test`, into build/dolos (its node_modules is 460 MB; npm's first install builds its
# tree-sitter parsers, minutes) from the pinned files in autograder/devtools/dolos/.
DOLOS := build/dolos
DOLOS_FILES := autograder/devtools/dolos/package.json autograder/devtools/dolos/package-lock.json \
	autograder/devtools/dolos/pairs.mjs
bench-similarity: install $(DOLOS)/node_modules/.installed
	$(BIN)/python -m autograder.devtools.similarity_bench $(if $(filter command line,$(origin N)),--n $(N),)

$(DOLOS)/node_modules/.installed: $(DOLOS_FILES)
	mkdir -p $(DOLOS) && cp $(DOLOS_FILES) $(DOLOS)/
	npm ci --prefix $(DOLOS) --no-audit --no-fund --silent
	@touch $@

clean:
	rm -rf $(VENV) build gradebook.db submitted autograded feedback exports reports demo demo-hub .pytest_cache
	find . -name __pycache__ -prune -exec rm -rf {} +
