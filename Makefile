# The two commands of the README: `make run` and `make test`. Everything else is a step of theirs.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMPS := .make
FRONTEND_SOURCES := $(shell find frontend/src -type f 2>/dev/null) $(wildcard frontend/vite.config.ts frontend/tsconfig.json)
PYTEST_ARGS ?=

.PHONY: run test install frontend chromium lint e2e

run: install frontend
	$(PY) manage.py migrate --noinput
	$(PY) manage.py seed_catalogue
	$(PY) manage.py seed_demo
	@echo "Koud water challenge draait op http://127.0.0.1:8000"
	$(PY) manage.py runserver 127.0.0.1:8000

test: install frontend chromium
	cd frontend && npm run typecheck && npm test
	$(PY) -m ruff check .
	$(PY) manage.py makemigrations --check --dry-run
	$(PY) -m pytest $(PYTEST_ARGS)

install: $(STAMPS)/python $(STAMPS)/npm

frontend: frontend/dist/manifest.json

$(STAMPS)/python: requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	@mkdir -p $(STAMPS) && touch $@

$(STAMPS)/npm: frontend/package.json frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund --loglevel=error
	@mkdir -p $(STAMPS) && touch $@

frontend/dist/manifest.json: $(STAMPS)/npm $(FRONTEND_SOURCES)
	cd frontend && npm run build

# Browser tests use Debian's Chromium; Playwright never downloads a browser of its own here.
chromium:
	@command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; }

lint: install
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

e2e: install frontend chromium
	$(PY) -m pytest tests/e2e $(PYTEST_ARGS)

# Load data on PostgreSQL (its own database), gunicorn with production settings on 127.0.0.1, wrk at
# 16 connections. Writes bench/results/latest.md and the table in docs/performance.md. See bench/README.md.
.PHONY: bench
bench: install frontend chromium
	bench/run.sh
