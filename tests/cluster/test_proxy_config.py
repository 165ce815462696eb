"""The shipped proxy configuration (deploy/nginx/koud.conf): nginx accepts it, and its limits match the app's."""

import re
import subprocess

import pytest
from django.conf import settings

from apps.challenges.photos import UPLOAD_OVERHEAD_BYTES
from tests.support.cluster import nginx_binary, render_nginx_site

from .conftest import missing

pytestmark = pytest.mark.cluster


def site(tmp_path) -> str:
    return render_nginx_site(listen="127.0.0.1:8080", upstreams=["127.0.0.1:8000"], media_root=tmp_path)


def directive(text: str, name: str) -> str:
    values = re.findall(rf"^\s*{name}\s+([^;]+);", text, flags=re.MULTILINE)
    assert len(values) == 1, (name, values)
    return values[0]


def test_it_buffers_requests_and_answers_and_takes_the_largest_photo(tmp_path):
    text = site(tmp_path)
    assert directive(text, "proxy_request_buffering") == "on"
    assert directive(text, "proxy_buffering") == "on"
    size = directive(text, "client_max_body_size")
    assert size.endswith("m")
    assert int(size[:-1]) * 1024 * 1024 >= settings.PHOTO_MAX_BYTES + UPLOAD_OVERHEAD_BYTES
    assert directive(text, "proxy_set_header X-Forwarded-For") == "$proxy_add_x_forwarded_for"
    # Exports only through the app's X-Accel-Redirect, after its access check.
    assert re.search(r"location /protected-exports/ \{\s*internal;\s*alias " + re.escape(str(tmp_path)), text)


def test_nginx_accepts_it(tmp_path):
    binary = nginx_binary()
    if binary is None:
        missing("nginx is missing (make nginx)")
    (tmp_path / "koud.conf").write_text(site(tmp_path))
    temp_paths = "".join(f"{kind}_temp_path {tmp_path}/{kind};\n" for kind in ("client_body", "proxy", "fastcgi"))
    (tmp_path / "nginx.conf").write_text(
        f"pid {tmp_path}/nginx.pid;\nevents {{}}\nhttp {{\n{temp_paths}"
        f"uwsgi_temp_path {tmp_path}/uwsgi;\nscgi_temp_path {tmp_path}/scgi;\n"
        f"access_log off;\ninclude {tmp_path}/koud.conf;\n}}\n"
    )
    checked = subprocess.run(  # noqa: S603
        [binary, "-t", "-p", str(tmp_path), "-e", str(tmp_path / "error.log"), "-c", str(tmp_path / "nginx.conf")],
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stderr


def test_a_missing_piece_fails_in_ci_and_skips_locally(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("POSTGRES_REQUIRED", raising=False)
    with pytest.raises(pytest.skip.Exception):
        missing("nginx is missing")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="nginx is missing"):
        missing("nginx is missing")
    monkeypatch.delenv("CI")
    monkeypatch.setenv("POSTGRES_REQUIRED", "1")
    with pytest.raises(pytest.fail.Exception, match="nginx is missing"):
        missing("nginx is missing")
