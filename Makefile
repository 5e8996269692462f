# Two commands matter: `make run` (the assistant) and `make test` (everything, offline).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SYNAPSE_VENV := .venv-synapse
STAMP := $(VENV)/.installed

.PHONY: run test lint install synapse bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/mayordomo run

# Synapse lives in its own venv: it pins versions our app does not need to share.
$(SYNAPSE_VENV)/bin/python:
	$(PYTHON) -m venv $(SYNAPSE_VENV)
	$(SYNAPSE_VENV)/bin/pip install -q --upgrade pip
	$(SYNAPSE_VENV)/bin/pip install -q 'matrix-synapse>=1.100'

synapse: $(SYNAPSE_VENV)/bin/python

test: $(STAMP) synapse
	SYNAPSE_PYTHON=$(CURDIR)/$(SYNAPSE_VENV)/bin/python $(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check bot tools memory tests bench
	$(BIN)/mypy
	$(BIN)/hadolint Dockerfile

bench: $(STAMP)
	for script in bench/*.py; do $(BIN)/python $$script || exit 1; done

clean:
	rm -rf $(VENV) $(SYNAPSE_VENV) .pytest_cache .mypy_cache .ruff_cache
