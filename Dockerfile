# Production image: Vite builds the islands, then Python 3.11 runs gunicorn as a non-root user.
# compose.yaml runs this one image as every app service: migrate (once per deploy), web (gunicorn),
# worker (python manage.py worker) and scheduler (python manage.py scheduler). See docs/operations.md.

FROM node:20-bookworm-slim AS frontend
WORKDIR /build/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend/ ./
# The web app manifest takes its colours from the design tokens (frontend/vite.config.ts).
COPY static/css/app.css ../static/css/app.css
RUN npm run build

FROM python:3.11-slim-bookworm AS app
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    DJANGO_SETTINGS_MODULE=config.settings.production
WORKDIR /app
# pg_dump/pg_restore for manage.py backup and restore: Debian's client is PostgreSQL 15, the major version of
# the postgres service in compose.yaml (a dump needs a client at least as new as the server).
RUN apt-get update \
    && apt-get install -y --no-install-recommends postgresql-client-15 \
    && rm -rf /var/lib/apt/lists/*
RUN groupadd --system --gid 1000 app \
    && useradd --system --uid 1000 --gid app --home-dir /app --shell /usr/sbin/nologin app
COPY requirements.txt ./
RUN pip install --no-cache-dir -r requirements.txt
COPY --chown=app:app manage.py pyproject.toml ./
COPY --chown=app:app config/ config/
COPY --chown=app:app apps/ apps/
COPY --chown=app:app templates/ templates/
COPY --chown=app:app locale/ locale/
COPY --chown=app:app static/ static/
COPY --from=frontend --chown=app:app /build/frontend/dist/ frontend/dist/
# collectstatic needs settings to load; a throw-away key is enough for this build step only.
RUN DJANGO_SECRET_KEY=build-only-not-a-secret-build-only-not-a-secret python manage.py collectstatic --noinput \
    && mkdir -p /app/media /backups && chown app:app /app/media /backups
# A new named volume takes the owner of the folder it is mounted on (app, uid 1000): photos and backups are
# writable without a chown. Gunicorn's control socket is off (config/gunicorn.conf.py).
USER app
EXPOSE 8000
# The web server's check; compose.yaml gives worker and scheduler their own (manage.py alive ...).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD python -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4).status == 200 else 1)"
CMD ["gunicorn", "config.wsgi:application", "--config", "config/gunicorn.conf.py"]
