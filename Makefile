# Entry points: `make demo`, `make test` (everything) and `make check` (the fast subset, no `slow`
# tests). Each creates .venv when missing. Compiled numba kernels are cached per machine
# (~/.cache/cfrlab/numba, or $CFRLAB_CACHE/numba): `make warmup` compiles them once, both cores.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test check warmup install install-dev browser lint bench docs clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/pip install -q -e .
	touch $@

# The dev extras are installed by name (read from pyproject.toml), not as `-e '.[dev]'`, which
# would reinstall cfrlab itself: `make test` installs them while the warm-up already runs it.
$(VENV)/.installed-dev: $(VENV)/.installed pyproject.toml
	$(BIN)/python -c "import re; t = open('pyproject.toml').read(); dev = re.search(r'^dev = \[(.*?)^\]', t, re.S | re.M).group(1); print('\n'.join(re.findall(r'\x22([^\x22]+)\x22', dev)))" > $(VENV)/dev-requirements.txt
	$(BIN)/pip install -q -r $(VENV)/dev-requirements.txt
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

# The demo first runs its own solve for two iterations, output hidden: on a new machine that
# compiles the kernels it needs (about 1-2 min; one line on the terminal says so), so the demo's
# own output has no silent minute. Cached afterwards: then it takes a second.
demo: $(VENV)/.installed
	@$(BIN)/cfrlab solve leduc --algorithm cfr+ --iterations 2 --show 6 --no-progress >/dev/null
	$(BIN)/cfrlab solve leduc --algorithm cfr+ --target 0.001 --show 6

# Debian's chromium for the browser test; skipped (with a message) where apt is unavailable.
browser:
	@command -v chromium >/dev/null 2>&1 || (command -v apt-get >/dev/null 2>&1 && \
	  (apt-get update -qq && apt-get install -y -qq chromium >/dev/null) || \
	  echo "note: chromium not installed; the browser test will be skipped")

warmup: $(VENV)/.installed
	$(BIN)/python -m cfrlab.warmup

# Three things at once: the browser, and once the package is in, the warm-up's compiling (both
# cores; it needs only the package) and the test extras (mostly download). pytest may write its
# bytecode (its assertion rewriting is the larger part of collecting 2,000 tests) even where
# PYTHONDONTWRITEBYTECODE is set. Work stealing: a worker that runs out of tests takes some
# of the other's (they last from a millisecond to a minute).
PREPARE = $(MAKE) --no-print-directory -j3 warmup $(VENV)/.installed-dev
PYTEST = PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n 2 --dist worksteal -q

test:
	@$(PREPARE) browser
	$(PYTEST)

check:
	@$(PREPARE)
	$(PYTEST) -m "not slow"

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check src tests benchmarks

# docs/api.md from the docstrings (tests/test_docs_api.py fails when it is stale)
docs: $(VENV)/.installed
	$(BIN)/python docs/make_api.py

bench: $(VENV)/.installed-dev
	for b in benchmarks/*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) build src/*.egg-info
