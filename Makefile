# Setup and test entry points. `make demo` installs everything and runs the main job;
# `make test` runs the whole test suite (it installs first if needed).
VENV ?= .venv
# the interpreter the venv is made from (3.11: the pins are for it); `make PYTHON=python3.11 demo`
PYTHON ?= python3
PY := $(VENV)/bin/python
ALLENNLP := $(VENV)/bin/allennlp
STAMP := $(VENV)/.installed
# allennlp-models (the benchmarks' baseline) lives apart from the runtime packages
BENCH_SITE := $(VENV)/bench-site

.PHONY: install system-deps demo test test-fast coverage bench bench-threads docs clean-venv

# srcframework goes into AllenNLP's global plugins file (~/.allennlp/plugins) on every
# `make install` (idempotent), so its subcommands work in any folder
install: $(STAMP)
	@$(PY) scripts/register_allennlp_plugin.py srcframework.allennlp_plugin

PLUGIN_FILES := $(wildcard plugins/srcframework-phonetic/setup.py plugins/srcframework-phonetic/srcframework_phonetic/*.py)

$(STAMP): setup.py requirements.txt constraints.txt requirements-bench.txt Makefile $(PLUGIN_FILES)
	@bash scripts/install_system_deps.sh
	test -x $(PY) || $(PYTHON) -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11) and "$(PYTHON) is Python %d.%d; srcframework installs on 3.11: make PYTHON=python3.11 ..." % sys.version_info[:2])'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip wheel "setuptools<81"
	$(PY) -m pip install -q -r requirements.txt -c constraints.txt
	$(PY) -m pip install -q --no-deps allennlp==2.10.1
	$(PY) -m pip install -q --no-deps --upgrade --target $(BENCH_SITE) -r requirements-bench.txt
	$(PY) -m pip install -q --no-deps --no-build-isolation -e .
	$(PY) -m pip install -q --no-deps --no-build-isolation plugins/srcframework-phonetic
	rm -rf plugins/srcframework-phonetic/build plugins/srcframework-phonetic/*.egg-info
	touch $(STAMP)

system-deps:
	bash scripts/install_system_deps.sh

# the quickstart recipe: trains the small BiDAF on the embedded data (--train-released: rather than
# putting back its released archive), installs it as bidaf-quickstart, and compares it on clean and
# keyboard-damaged questions (recipes/quickstart/README.md); the misspelling set reads Wikipedia's
# list from ../shared/data (SHARED_DATA)
demo: install
	$(ALLENNLP) recipe run quickstart --train-released

# the tests run on two pytest-xdist workers (TEST_WORKERS=auto: one a core; an idle worker takes
# tests queued for the other), each on one torch thread, and the 30 slowest are listed at the end.
# `make test-fast` leaves out the tests marked `slow` (pytest.ini), for the working loop; `make test`
# (and CI) runs them all
TEST_WORKERS ?= 2
PYTEST := OMP_NUM_THREADS=1 $(PY) -m pytest -q -n $(TEST_WORKERS) --dist worksteal --durations=30

test: install
	$(PYTEST) tests plugins/srcframework-phonetic/tests

test-fast: install
	$(PYTEST) -m "not slow" tests plugins/srcframework-phonetic/tests

# line coverage of srcframework/ over the whole suite, the processes the tests start included
# (.coveragerc); the total is the last line
coverage: install
	rm -f .coverage .coverage.*
	OMP_NUM_THREADS=1 $(PY) -m coverage run -m pytest -q -n $(TEST_WORKERS) --dist worksteal tests plugins/srcframework-phonetic/tests
	$(PY) -m coverage combine -q
	$(PY) -m coverage report | tail -1

# the documentation site in site/; --strict fails on a broken link or a page missing from the nav
docs: install
	$(VENV)/bin/mkdocs build --strict

bench: install
	PYTHONPATH=$(BENCH_SITE) $(PY) benchmarks/train_throughput.py --bf16

# a training alone, then beside one and two CPU-bound jobs, by torch threads and OpenMP wait policy
# (docs/install.md); on an otherwise idle machine, for some 20 minutes
bench-threads: install
	$(PY) benchmarks/thread_sharing.py

clean-venv:
	rm -rf $(VENV)
