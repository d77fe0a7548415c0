# Two commands for a newcomer: `make run` and `make test`.
PYTHON ?= $(shell scripts/find-python)
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test install install-bench lock clean

$(BIN)/python:
	@test -n "$(PYTHON)" || { echo "No Python 3.12+ found (see above)."; exit 1; }
	$(PYTHON) -m venv $(VENV)

# Runtime + test dependencies: what `make run` and `make test` need (the image takes runtime only).
$(VENV)/.installed: requirements-test.lock | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements-test.lock
	touch $@

$(VENV)/.bench-installed: requirements-bench.lock $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -r requirements-bench.lock
	touch $@

install: $(VENV)/.installed

install-bench: $(VENV)/.bench-installed

run: install
	$(BIN)/python scripts/run.py

test: install
	@eval "$$($(BIN)/python scripts/services.py)" && $(BIN)/python -m pytest $(PYTEST_ARGS)

# Re-pin the three lock files from pyproject.toml's direct dependencies.
lock: | $(BIN)/python
	$(BIN)/python scripts/lock.py

clean:
	rm -rf $(VENV) var
