# Two commands matter: `make run` (the assistant) and `make test` (everything, offline).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SYNAPSE_VENV := .venv-synapse
LLAMA_VENV := .venv-llama-cpp
LLAMA_STAMP := $(LLAMA_VENV)/.installed
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: run test lint install synapse llama-cpp bench bench-all clean

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

# llama-cpp-python's real OpenAI-compatible server, which the wire tests must satisfy. llama.cpp
# itself is not compiled (25+ min on two cores): its libraries come prebuilt from the
# llama-cpp-py-sync wheel of the llama.cpp build whose C API this release binds (see
# tests/llama_cpp/prepare_libs.py). No model is downloaded; the tests build a tiny GGUF.
$(LLAMA_STAMP): tests/llama_cpp/prepare_libs.py
	$(PYTHON) -m venv $(LLAMA_VENV)
	$(LLAMA_VENV)/bin/pip install -q --upgrade pip
	CMAKE_ARGS="-DLLAMA_BUILD=OFF -DLLAVA_BUILD=OFF" $(LLAMA_VENV)/bin/pip install -q \
		'llama-cpp-python[server]==0.3.36' 'gguf==0.19.0'
	$(LLAMA_VENV)/bin/pip install -q --no-deps 'llama-cpp-py-sync==0.11352'
	$(LLAMA_VENV)/bin/python tests/llama_cpp/prepare_libs.py $(LLAMA_VENV)/llama-cpp-lib
	touch $(LLAMA_STAMP)

llama-cpp: $(LLAMA_STAMP)

test: $(DEV_STAMP) synapse llama-cpp
	SYNAPSE_PYTHON=$(CURDIR)/$(SYNAPSE_VENV)/bin/python LLAMA_CPP_PYTHON=$(CURDIR)/$(LLAMA_VENV)/bin/python \
		$(BIN)/python -m pytest -q

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
	rm -rf $(VENV) $(SYNAPSE_VENV) $(LLAMA_VENV) .pytest_cache .mypy_cache .ruff_cache
