# Two commands matter: `make run` (the assistant) and `make test` (everything, offline).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SYNAPSE_VENV := .venv-synapse
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: run test lint install synapse bench bench-all clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# Running needs only the app's own dependencies; test and lint tools come with `make test`/`make lint`.
$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install -q -e .
	touch $(STAMP)

$(DEV_STAMP): $(STAMP)
	$(BIN)/pip install -q -e '.[dev]'
	touch $(DEV_STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/mayordomo run

# Synapse lives in its own venv: it pins versions our app does not need to share.
$(SYNAPSE_VENV)/bin/python:
	$(PYTHON) -m venv $(SYNAPSE_VENV)
	$(SYNAPSE_VENV)/bin/pip install -q --upgrade pip
	$(SYNAPSE_VENV)/bin/pip install -q 'matrix-synapse>=1.100'

synapse: $(SYNAPSE_VENV)/bin/python

test: $(DEV_STAMP) synapse
	SYNAPSE_PYTHON=$(CURDIR)/$(SYNAPSE_VENV)/bin/python $(BIN)/python -m pytest -q

lint: $(DEV_STAMP)
	$(BIN)/ruff check bot tools memory tests bench
	$(BIN)/mypy
	$(BIN)/hadolint Dockerfile

# `bench` runs what finishes in minutes on a fresh clone (LoCoMo on one test conversation,
# memory scale up to 10k cards); `bench-all` runs every benchmark in full. Embeddings are
# cached under .cache/, so reruns are quicker.
QUICK_BENCH := bench/startup.py bench/route_catalog.py bench/token_cost.py bench/embed_rate.py
HONESTY_CASES := ../shared/bench/honesty/dev.jsonl

bench: $(DEV_STAMP)
	for script in $(QUICK_BENCH); do $(BIN)/python $$script || exit 1; done
	$(BIN)/python bench/memory_scale.py --sizes 1000,10000 --queries 100
	$(BIN)/python bench/locomo.py --splits test --limit 1
	$(BIN)/python bench/honesty.py $(HONESTY_CASES)
	$(BIN)/python bench/load.py

bench-all: $(DEV_STAMP)
	for script in $(QUICK_BENCH) bench/route_bfcl.py bench/memory_scale.py; do $(BIN)/python $$script || exit 1; done
	$(BIN)/python bench/locomo.py --splits all
	$(BIN)/python bench/honesty.py $(HONESTY_CASES)
	$(BIN)/python bench/load.py --chats 100 --messages 20

clean:
	rm -rf $(VENV) $(SYNAPSE_VENV) .pytest_cache .mypy_cache .ruff_cache
