# The two commands of the README: `make run` and `make test`. Everything else is a step of theirs.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMPS := .make
FRONTEND_SOURCES := $(shell find frontend/src -type f 2>/dev/null) $(wildcard frontend/vite.config.ts frontend/tsconfig.json)
PYTEST_ARGS ?=
# pytest-xdist workers for make test (each with its own test database and Redis database, tests/conftest.py);
# 0 runs the suite in this process. Three on CI's two cores: while one worker waits on the servers of the shared-server
# tests the other two keep both cores busy (the whole run 1,122 s with two, 1,016 s with three: docs/performance.md).
PYTEST_WORKERS ?= 3
# `make run` serves the demo like a real site (the Dutch 404 and 500 pages); DJANGO_DEBUG=true for Django's debug pages.
PORT ?= 8000
DJANGO_DEBUG ?= false
# Links in mails and printed invitations follow the port; localhost, not 127.0.0.1: browsers refuse passkeys on an IP address.
SITE_URL ?= http://localhost:$(PORT)

.PHONY: run test install frontend chromium nginx caddy pg-client lint typecheck e2e screenshots

run: install frontend
	@# The steps live in tools/serve_demo.sh: the newcomer's journey in CI (tests/newcomer/) runs the same script.
	PY=$(PY) PORT=$(PORT) SITE_URL=$(SITE_URL) DJANGO_DEBUG=$(DJANGO_DEBUG) tools/serve_demo.sh

SQLITE_CHECK = tests/test_pages.py tests/core/test_prepared.py tests/together/test_plan_list.py \
	tests/challenges/test_dashboard_reads.py tests/logbook/test_statistics.py tests/club/test_feed_first_page.py \
	tests/challenges/test_first_dip.py tests/core/test_sql_registry.py

test: install frontend chromium nginx caddy pg-client typecheck
	cd frontend && npm run typecheck && npm test
	$(PY) -m ruff check .
	$(PY) manage.py makemigrations --check --dry-run
	@# --dist loadgroup: the tests that share a server run one after another in one worker (SERIAL in tests/conftest.py).
	$(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)
	@# make run's embedded SQLite: every page and the compiled queries once more there (CI's suite is PostgreSQL).
	DATABASE_URL=sqlite:////tmp/koud-sqlite-check.db $(PY) -m pytest -q -p no:cacheprovider $(SQLITE_CHECK)

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

# The buffering proxy of deploy/nginx/koud.conf: tests/cluster/ run it (as the user, on loopback) in front of gunicorn.
nginx:
	@command -v nginx >/dev/null || test -x /usr/sbin/nginx || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx-light >/dev/null; }

# The proxy compose.yaml ships (deploy/caddy/Caddyfile): tests/deploy/ run it as the user, on loopback, with
# HTTPS from its local CA. Debian's package enables a system service; the tests never use it.
caddy:
	@command -v caddy >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends caddy >/dev/null; }

# pg_dump and pg_restore for `manage.py backup` and `restore` (tests/operations/): Debian's client, whose major
# version must be the server's or newer.
pg-client:
	@command -v pg_dump >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql-client >/dev/null; }

lint: install typecheck
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) tools/check_css_classes.py

# mypy with django-stubs over apps/ and config/ ([tool.mypy] in pyproject.toml); fails on any error.
typecheck: install
	$(PY) -m mypy

e2e: install frontend chromium
	$(PY) -m pytest -n $(PYTEST_WORKERS) tests/e2e $(PYTEST_ARGS)

# The browser tests with a screenshot of every screen they open, to look at: test-artifacts/screenshots/.
screenshots: install frontend chromium
	SCREENSHOTS=1 $(PY) -m pytest -n $(PYTEST_WORKERS) tests/e2e $(PYTEST_ARGS)

# Load data on PostgreSQL (its own database), gunicorn with production settings on 127.0.0.1, wrk at
# 16 connections. Writes bench/results/latest.md and the table in docs/performance.md. See bench/README.md.
.PHONY: bench
bench: install frontend chromium nginx pg-client
	bench/run.sh
