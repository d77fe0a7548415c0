# Two commands for a newcomer: `make run` and `make test`.
PYTHON ?= $(shell scripts/find-python)
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test bench install install-bench lock clean

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

# After a whole run on PostgreSQL, the engine, requests through the agent and the PO, its PDF and its
# invoices run again on SQLite,
# `make run`'s embedded default, which that run never touches.
SQLITE_TESTS ?= tests/agentstate tests/procurement/policy/test_approval_chain.py tests/procurement/purchase/test_schema_fixtures.py \
	tests/procurement/invoicing

# The tests run on TEST_PROCESSES processes (pytest-xdist), each with its own test database;
# TEST_PROCESSES=0 runs them in this one.
TEST_PROCESSES ?= 2

# The import contracts (pyproject.toml [tool.importlinter]) first: a broken floor fails the build.
test: install
	$(BIN)/lint-imports --no-cache
	@eval "$$($(BIN)/python scripts/services.py)" && $(BIN)/python -m pytest -n $(TEST_PROCESSES) $(PYTEST_ARGS) && \
	if [ -n "$$DATABASE_URL" ] && [ -z "$(PYTEST_ARGS)" ] && [ -n "$(SQLITE_TESTS)" ]; then \
		echo "Again on SQLite, make run's default: $(SQLITE_TESTS)"; \
		env -u DATABASE_URL $(BIN)/python -m pytest -n $(TEST_PROCESSES) -q -m "not postgres" $(SQLITE_TESTS); fi

# Every benchmark on PostgreSQL and Redis (not part of `make test`): prints the figures and writes
# bench/RESULTS.md, bench/results/*.json and the charts. BENCH_ARGS=--quick checks the plumbing.
bench: install-bench
	@eval "$$($(BIN)/python scripts/services.py)" && $(BIN)/python bench/run.py $(BENCH_ARGS)

# Re-pin the three lock files from pyproject.toml's direct dependencies.
lock: | $(BIN)/python
	$(BIN)/python scripts/lock.py

clean:
	rm -rf $(VENV) var
