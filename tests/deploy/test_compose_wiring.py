"""compose.yaml is the production instructions (issue 32 §1): its wiring, read as docker compose reads it.

No container runs here (no image registry is reachable); tests/deploy/test_stack.py starts the services'
very commands natively. This module checks what only the file can say: volumes, restart policies, health
checks, order, logs, and that every variable the app reads can be set through .env.example.
"""

import re

import pytest

from .env_file import APP_SERVICES, REPO, compose, env_example, interpolate

MEDIA = "/app/media"
# Switches for development and tests only: production leaves them unset, so .env.example does not offer them.
DEVELOPMENT_ONLY = {
    "DJANGO_DEBUG",
    "VITE_DEV_SERVER",
    "VITE_DEV_SERVER_PORT",
    "MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN",
    "WEBPUSH_ALLOW_INSECURE_LOOPBACK",
}


@pytest.fixture(scope="module")
def services() -> dict:
    return compose()["services"]


def test_the_stack_has_its_services(services):
    assert set(services) == {"postgres", "redis", "migrate", "web", "worker", "scheduler", "proxy"}
    assert services["postgres"]["image"].startswith("postgres:")
    assert services["redis"]["image"].startswith("redis:")
    assert services["proxy"]["image"] == "caddy:2"


def test_web_worker_and_scheduler_run_one_image(services):
    images = {name: (services[name]["image"], services[name].get("build")) for name in APP_SERVICES}
    assert len(set(images.values())) == 1, images
    assert services["web"]["build"] == "."


def test_one_media_volume_for_web_worker_scheduler_and_the_proxy(services):
    volumes = compose()["volumes"]
    for name in ("web", "worker", "scheduler"):
        assert f"media:{MEDIA}" in services[name]["volumes"], name
        assert services[name]["environment"]["MEDIA_ROOT"] == MEDIA, name
        assert f"backups:{services[name]['environment']['BACKUP_DIR']}" in services[name]["volumes"], name
    # The proxy sends the prepared exports from the same volume, read-only, where the Caddyfile looks.
    proxy = services["proxy"]
    assert f"media:{proxy['environment']['KOUD_MEDIA_ROOT']}:ro" in proxy["volumes"]
    assert {"media", "backups", "postgres"} <= set(volumes)
    assert any(v.endswith(":/var/lib/postgresql/data") for v in services["postgres"]["volumes"])


def test_every_long_running_service_restarts_and_the_one_shot_does_not(services):
    for name, service in services.items():
        expected = "no" if name == "migrate" else "unless-stopped"
        assert service["restart"] == expected, name


def test_each_service_has_a_health_check_that_fits_it(services):
    checks = {name: service.get("healthcheck", {}) for name, service in services.items()}
    assert checks["postgres"]["test"][:2] == ["CMD", "pg_isready"]
    assert checks["redis"]["test"] == ["CMD", "redis-cli", "ping"]
    assert "/healthz" in " ".join(checks["web"]["test"])
    # The worker's and the scheduler's prove that process (its heartbeat), not the image's web check.
    assert checks["worker"]["test"] == ["CMD", "python", "manage.py", "alive", "worker"]
    assert checks["scheduler"]["test"] == ["CMD", "python", "manage.py", "alive", "scheduler"]
    assert checks["migrate"] == {"disable": True}
    assert "2019/config" in " ".join(checks["proxy"]["test"])  # Caddy's admin endpoint answers


def test_migrations_run_once_before_web_worker_and_scheduler(services):
    assert services["migrate"]["command"] == ["python", "manage.py", "migrate", "--noinput"]
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    for name in ("web", "worker", "scheduler"):
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully", name
        assert "migrate" not in " ".join(services[name]["command"]), name


def test_logs_are_rotated(services):
    for name, service in services.items():
        logging = service["logging"]
        assert logging["driver"] == "json-file", name
        assert logging["options"]["max-size"] and int(logging["options"]["max-file"]) >= 2, name


def test_only_the_proxy_is_published(services):
    published = {name for name, service in services.items() if service.get("ports")}
    assert published == {"proxy"}
    assert {"80:80", "443:443"} <= set(services["proxy"]["ports"])


def _variables_the_app_reads() -> set[str]:
    names: set[str] = set()
    for path in [*REPO.glob("config/**/*.py"), *REPO.glob("apps/**/*.py")]:
        text = path.read_text()
        names |= set(re.findall(r"\benv_(?:str|bool|int|list|secret)\(\s*\"([A-Z][A-Z0-9_]*)\"", text))
        names |= set(re.findall(r"os\.environ\.get\(\s*\"([A-Z][A-Z0-9_]*)\"", text))
    return names


def test_every_variable_the_services_read_can_be_set_in_env_example(services):
    read = _variables_the_app_reads()
    assert {"DJANGO_SECRET_KEY", "DEFAULT_FROM_EMAIL", "GUNICORN_WORKERS", "REDIS_URL"} <= read  # the scan works
    offered = set(env_example(commented=True))
    fixed_by_compose = set(services["web"]["environment"])
    missing = read - offered - fixed_by_compose - DEVELOPMENT_ONLY - {"DJANGO_SETTINGS_MODULE"}
    assert not missing, f"add these to .env.example (or set them in compose.yaml): {sorted(missing)}"
    # What compose.yaml itself needs from .env is in the "must set" part, uncommented.
    compose_text = (REPO / "compose.yaml").read_text()
    variables = re.findall(r"\$\{([A-Z0-9_]+)(:-)?", compose_text)
    needed = {name for name, default in variables if not default}
    optional = {name for name, default in variables if default}
    assert optional <= offered, sorted(optional - offered)
    assert needed <= set(env_example()), sorted(needed - set(env_example()))
    assert not (fixed_by_compose & set(env_example())), "set by compose.yaml; .env.example must not offer them"


def test_every_app_service_reads_the_env_file(services):
    for name in APP_SERVICES:
        assert services[name]["env_file"] == ".env", name
    assert ".env" in (REPO / ".dockerignore").read_text().split()  # the secret never lands in the image


def test_the_image_holds_every_folder_the_app_reads_at_run_time():
    # A folder left out of the image fails quietly: without locale/ allauth's pages lose the club's Dutch,
    # without pyproject.toml the version reads "onbekend".
    copied = " ".join(line for line in (REPO / "Dockerfile").read_text().splitlines() if line.startswith("COPY"))
    for needed in ("manage.py", "pyproject.toml", "config/", "apps/", "templates/", "static/", "locale/"):
        assert re.search(rf"\s{re.escape(needed)}(\s|$)", copied), f"the Dockerfile does not copy {needed}"


def test_the_image_builds_without_a_registry():
    # A `# syntax=` line makes BuildKit fetch that frontend image from Docker Hub before the first step:
    # the compose drill (deploy/drill/) found the build failing there without a registry.
    first_lines = (REPO / "Dockerfile").read_text().splitlines()[:5]
    assert not any(re.match(r"#\s*syntax\s*=", line, re.IGNORECASE) for line in first_lines)


def test_the_proxy_gets_the_extra_caddy_options_from_env():
    """A trial on a name without public DNS sets KOUD_CADDY_OPTIONS=local_certs in .env, not in compose.yaml."""
    proxy = interpolate(
        compose()["services"]["proxy"]["environment"], {"KOUD_DOMAIN": "koud.test", "KOUD_CADDY_OPTIONS": "local_certs"}
    )
    assert proxy["KOUD_CADDY_OPTIONS"] == "local_certs"
    assert "{$KOUD_CADDY_OPTIONS}" in (REPO / "deploy/caddy/Caddyfile").read_text()


COMPOSE_COMMAND = re.compile(
    r"docker compose (up -d|stop|start|restart|exec|run --rm|logs|cp \S+)((?: [a-z][a-z0-9_-]*)+)"
)


def test_every_service_the_docs_name_is_in_compose_yaml(services):
    """A volunteer copies the README's commands as they stand: `up -d db` when the service is `postgres` fails."""
    docs = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    named = set()
    for doc in docs:
        for verb, words in COMPOSE_COMMAND.findall(doc.read_text()):
            first_only = verb.startswith(("exec", "run", "cp", "logs"))  # then the command inside the container
            candidates = words.split()[:1] if first_only else words.split()
            named |= {word.split(":")[0] for word in candidates}
    assert {"web", "postgres", "redis"} <= named  # the scan finds the README's commands
    assert named <= set(services), sorted(named - set(services))
