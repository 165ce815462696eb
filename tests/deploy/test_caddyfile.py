"""deploy/caddy/Caddyfile as compose's proxy service runs it (its environment, no test options), adapted by
Caddy itself to the JSON it would run: HTTPS for the domain, bodies limited and buffered, exports sent from
the media volume, the Dutch page for 502/503/504. tests/deploy/test_stack.py runs it for real."""

import json
import os
import subprocess

import pytest

from tests.cluster.conftest import missing

from . import stack
from .env_file import REPO, compose, interpolate


@pytest.fixture(scope="module")
def adapted(tmp_path_factory) -> dict:
    if stack.caddy_binary() is None:
        missing("caddy is missing (make caddy: apt-get install caddy)")
    proxy = compose()["services"]["proxy"]
    text = (REPO / "deploy" / "caddy" / "Caddyfile").read_text()
    if stack.caddy_version() < (2, 7):
        for new, old in stack.CADDY_26_NAMES.items():
            text = text.replace(new, old)
    path = tmp_path_factory.mktemp("caddyfile") / "Caddyfile"
    path.write_text(text)
    env = {"PATH": os.environ["PATH"], **interpolate(proxy["environment"], {"KOUD_DOMAIN": "club.example"})}
    out = subprocess.run(  # noqa: S603
        [stack.caddy_binary(), "adapt", "--config", str(path), "--adapter", "caddyfile"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def _handlers(routes: list) -> list[dict]:
    found = []
    for route in routes:
        for handler in route.get("handle", []):
            found.append(handler)
            found += _handlers(handler.get("routes", []))
    return found


def test_the_stack_proxy_serves_the_domain_over_https_only_through_the_buffering_proxy(adapted):
    (server,) = adapted["apps"]["http"]["servers"].values()
    assert server["listen"] == [":443"]  # and Caddy's automatic redirect from :80
    assert server["routes"][0]["match"] == [{"host": ["club.example"]}]
    handlers = _handlers(server["routes"])
    (body,) = [h for h in handlers if h["handler"] == "request_body"]
    assert body["max_size"] == 16 * 1024 * 1024  # PHOTO_MAX_BYTES (15 MiB) plus the form around it
    (proxy,) = [h for h in handlers if h["handler"] == "reverse_proxy"]
    assert proxy["upstreams"] == [{"dial": "web:8000"}]
    assert proxy.get("buffer_requests") is True or proxy.get("request_buffers", 0) >= 16 * 1024 * 1024
    (export,) = proxy["handle_response"]
    assert export["match"] == {"headers": {"X-Accel-Redirect": ["/protected-exports/*"]}}
    export_handlers = _handlers(export["routes"])
    assert {"handler": "vars", "root": "/srv/media/exports"} in export_handlers
    assert any(h["handler"] == "file_server" for h in export_handlers)


def test_502_503_and_504_get_the_dutch_page(adapted):
    (server,) = adapted["apps"]["http"]["servers"].values()
    errors = json.dumps(server["errors"])
    assert "{http.error.status_code} in [502, 503, 504]" in errors or "502, 503, 504" in errors
    assert "/we-zijn-zo-terug.html" in errors and "/etc/caddy/errors" in errors


def test_html_and_only_html_is_compressed(adapted):
    (server,) = adapted["apps"]["http"]["servers"].values()
    (encode,) = [h for h in _handlers(server["routes"]) if h["handler"] == "encode"]
    assert set(encode["encodings"]) == {"gzip", "zstd"}
    assert encode["match"] == {"headers": {"Content-Type": ["text/html*"]}}
