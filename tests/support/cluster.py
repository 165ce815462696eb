"""The app as production runs it, on loopback: gunicorn instances (production settings), `manage.py worker`
processes and Debian's nginx with the shipped configuration (deploy/nginx/koud.conf) in front.

Used by tests/cluster/ (the slow-upload and two-instance tests) and bench/slow_upload.py. Each process
runs in its own process group, so `kill()` takes a whole instance down at once (master and workers),
as a machine that dies would. Nothing here binds to anything but 127.0.0.1.
"""

import http.client
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

REPO = Path(__file__).resolve().parents[2]
NGINX_TEMPLATE = REPO / "deploy" / "nginx" / "koud.conf"
HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def nginx_binary() -> str | None:
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)


def render_nginx_site(*, listen: str, upstreams: list[str], media_root: Path, server_name: str = HOST) -> str:
    """deploy/nginx/koud.conf with its ${KOUD_...} values filled in, as envsubst would."""
    values = {
        "KOUD_LISTEN": listen,
        "KOUD_SERVER_NAME": server_name,
        "KOUD_UPSTREAM_SERVERS": " ".join(f"server {address} max_fails=1 fail_timeout=10s;" for address in upstreams),
        "KOUD_MEDIA_ROOT": str(media_root),
    }
    text = NGINX_TEMPLATE.read_text()
    for name, value in values.items():
        text = text.replace("${" + name + "}", value)
    left = re.findall(r"\$\{KOUD_\w+\}", text)
    if left:
        raise ValueError(f"deploy/nginx/koud.conf has values nobody fills in: {left}")
    return text


def wait_for_port(port: int, *, process: subprocess.Popen, log: Path, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"process exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with socket.create_connection((HOST, port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {HOST}:{port} after {seconds} s:\n{log.read_text()[-3000:]}")


@dataclass
class Process:
    """One program in its own process group, its output in `log`."""

    name: str
    argv: list[str]
    env: dict[str, str]
    log: Path
    port: int | None = None
    popen: subprocess.Popen | None = None

    def start(self) -> "Process":
        with self.log.open("ab") as out:
            self.popen = subprocess.Popen(  # noqa: S603 - our own argv
                self.argv, cwd=REPO, env=self.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        if self.port is not None:
            wait_for_port(self.port, process=self.popen, log=self.log)
        return self

    @property
    def running(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def kill(self) -> None:
        """SIGKILL to the whole group: the master and its workers die at once, nothing shuts down cleanly."""
        self._signal_group(signal.SIGKILL)
        self.popen.wait(10)

    def stop(self, *, seconds: float = 15) -> None:
        if not self.running:
            return
        self._signal_group(signal.SIGTERM)
        try:
            self.popen.wait(seconds)
        except subprocess.TimeoutExpired:
            self._signal_group(signal.SIGKILL)
            self.popen.wait(10)

    def _signal_group(self, sig: int) -> None:
        try:
            os.killpg(self.popen.pid, sig)
        except ProcessLookupError:
            pass


def gunicorn(name: str, *, env: dict[str, str], workdir: Path) -> Process:
    port = free_port()
    env = {**env, "GUNICORN_BIND": f"{HOST}:{port}", "GUNICORN_ACCESSLOG": str(workdir / f"{name}.access.log")}
    argv = [sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.conf.py", "config.wsgi:application"]
    return Process(name, argv, env, workdir / f"{name}.log", port=port)


def worker(name: str, *, env: dict[str, str], workdir: Path) -> Process:
    """The task worker as production runs it: `manage.py worker` (django-tasks' db_worker with a heartbeat)."""
    argv = [sys.executable, "manage.py", "worker", "--no-reload", "--no-startup-delay", "--interval", "0.2"]
    return Process(name, argv, env, workdir / f"{name}.log")


def scheduler(name: str, *, env: dict[str, str], workdir: Path, tick: float = 0.2) -> Process:
    """`manage.py scheduler`: every scheduled job on its time, one at a time across schedulers."""
    argv = [sys.executable, "manage.py", "scheduler", "--tick", str(tick)]
    return Process(name, argv, env, workdir / f"{name}.log")


def nginx(*, upstreams: list[str], workdir: Path, media_root: Path, port: int | None = None) -> Process:
    """Debian's nginx with deploy/nginx/koud.conf, as a user process: pid, logs and temp files in `workdir`.

    The test wrapper adds only what a system nginx.conf has (paths) and a header naming the instance
    that answered, so a test can see requests land on both.
    """
    binary = nginx_binary()
    if binary is None:
        raise RuntimeError("nginx is missing: apt-get install nginx-light (make nginx)")
    port = port or free_port()
    root = workdir / "nginx"
    root.mkdir(parents=True, exist_ok=True)
    site = render_nginx_site(listen=f"{HOST}:{port}", upstreams=upstreams, media_root=media_root)
    (root / "koud.conf").write_text(site)
    # A root master hands its workers to "nobody", who cannot enter pytest's private temp folders.
    user = "user root;\n" if os.geteuid() == 0 else ""
    (root / "nginx.conf").write_text(
        f"""{user}daemon off;
worker_processes 1;
pid {root}/nginx.pid;
error_log {root}/error.log warn;
events {{ worker_connections 256; }}
http {{
    client_body_temp_path {root}/client_body;
    proxy_temp_path {root}/proxy;
    fastcgi_temp_path {root}/fastcgi;
    uwsgi_temp_path {root}/uwsgi;
    scgi_temp_path {root}/scgi;
    log_format upstream '$remote_addr "$request" $status $body_bytes_sent $upstream_addr $request_time';
    access_log {root}/access.log upstream;
    add_header X-Koud-Upstream $upstream_addr always;
    include {root}/koud.conf;
}}
"""
    )
    argv = [binary, "-p", str(root), "-e", str(root / "error.log"), "-c", str(root / "nginx.conf")]
    return Process("nginx", argv, dict(os.environ), root / "nginx.log", port=port)


# --- a small HTTP client with its own cookie jar -----------------------------------------------------------


@dataclass
class Answer:
    status: int
    headers: http.client.HTTPMessage
    body: bytes
    seconds: float

    @property
    def upstream(self) -> str | None:
        return self.headers.get("X-Koud-Upstream")

    @property
    def text(self) -> str:
        return self.body.decode()


@dataclass
class Browser:
    """One member's browser: cookies kept by hand (the app's cookies are Secure, this is plain http on
    loopback behind a proxy that would terminate TLS), one connection per request."""

    port: int
    jar: dict[str, str] = field(default_factory=dict)
    timeout: float = 60
    # HTTPS (tests/deploy/: Caddy with a local CA this context trusts), to `host` on loopback.
    tls: ssl.SSLContext | None = None
    host: str = HOST

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        if self.tls is not None:
            return http.client.HTTPSConnection(self.host, self.port, timeout=timeout, context=self.tls)
        return http.client.HTTPConnection(HOST, self.port, timeout=timeout)

    def _headers(self, extra: dict | None = None) -> dict:
        headers = {"Host": f"{self.host}:{self.port}"}
        if self.tls is not None:  # over HTTPS Django's CSRF check wants the Origin a browser sends
            headers["Origin"] = f"https://{self.host}:{self.port}"
        if self.jar:
            headers["Cookie"] = "; ".join(f"{name}={value}" for name, value in self.jar.items())
        return {**headers, **(extra or {})}

    def _keep_cookies(self, response: http.client.HTTPResponse) -> None:
        for header in response.msg.get_all("Set-Cookie") or []:
            parsed = SimpleCookie()
            parsed.load(header)
            for name, morsel in parsed.items():
                if morsel["max-age"] == "0" or not morsel.value:
                    self.jar.pop(name, None)
                else:
                    self.jar[name] = morsel.value

    def request(self, method: str, path: str, *, body: bytes | None = None, headers: dict | None = None) -> Answer:
        started = time.monotonic()
        conn = self._connection(self.timeout)
        try:
            conn.request(method, path, body=body, headers=self._headers(headers))
            response = conn.getresponse()
            data = response.read()
        finally:
            conn.close()
        self._keep_cookies(response)
        return Answer(response.status, response.msg, data, time.monotonic() - started)

    def get(self, path: str) -> Answer:
        return self.request("GET", path)

    def csrf_token(self, path: str = "/auth") -> str:
        page = self.get(path).text
        match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert match, f"no CSRF token on {path}"
        return match.group(1)

    def post_form(self, path: str, fields: dict, *, token: str) -> Answer:
        body = urlencode({"csrfmiddlewaretoken": token, **fields}).encode()
        return self.request("POST", path, body=body, headers={"Content-Type": "application/x-www-form-urlencoded"})

    def sign_in(self, email: str, password: str) -> Answer:
        answer = self.post_form(
            "/auth", {"form": "inloggen", "login": email, "password": password}, token=self.csrf_token()
        )
        assert answer.status == 302 and "sessionid" in self.jar, (answer.status, answer.headers.get("Location"))
        return answer

    def register_dip(
        self, *, request_id: str | None = None, tapped_at: str | None = None, photo: bytes | None = None
    ) -> Answer:
        """POST /challenge/plons as the stamp card sends it (multipart, CSRF header)."""
        fields = {"request_id": request_id or str(uuid.uuid4())}
        if tapped_at:
            fields["tapped_at"] = tapped_at
        content_type, body = multipart(fields, photo=photo)
        return self.request(
            "POST",
            "/challenge/plons",
            body=body,
            headers={"Content-Type": content_type, "X-CSRFToken": self.jar["csrftoken"], "Accept": "application/json"},
        )

    def send_slowly(
        self, path: str, *, body: bytes, content_type: str, seconds: float, progress: list[int] | None = None
    ) -> Answer:
        """Send `body` over about `seconds`, in small chunks with pauses, as a phone on a slow line does.
        `progress[0]` holds the bytes sent so far, for a test that watches."""
        chunk = 16 * 1024
        pause = seconds / max(len(body) / chunk, 1)
        started = time.monotonic()
        conn = self._connection(self.timeout + seconds)
        try:
            conn.putrequest("POST", path, skip_host=True, skip_accept_encoding=True)
            headers = self._headers(
                {
                    "Content-Type": content_type,
                    "Content-Length": str(len(body)),
                    "X-CSRFToken": self.jar["csrftoken"],
                    "Accept": "application/json",
                }
            )
            for name, value in headers.items():
                conn.putheader(name, value)
            conn.endheaders()
            for offset in range(0, len(body), chunk):
                conn.send(body[offset : offset + chunk])
                if progress is not None:
                    progress[0] = min(offset + chunk, len(body))
                time.sleep(pause)
            response = conn.getresponse()
            data = response.read()
        finally:
            conn.close()
        return Answer(response.status, response.msg, data, time.monotonic() - started)


def multipart(fields: dict[str, str], *, photo: bytes | None = None) -> tuple[str, bytes]:
    boundary = f"koud{uuid.uuid4().hex}"
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        for name, value in fields.items()
    ]
    if photo is not None:
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="photo"; filename="plons.jpg"\r\n'
            "Content-Type: image/jpeg\r\n\r\n".encode()
            + photo
            + b"\r\n"
        )
    parts.append(f"--{boundary}--\r\n".encode())
    return f"multipart/form-data; boundary={boundary}", b"".join(parts)


def phone_photo(size_bytes: int) -> bytes:
    """A real JPEG of at least `size_bytes`: noise compresses badly, as a dark, grainy photo of a lake does."""
    import io

    from PIL import Image

    side = 1000
    while True:
        image = Image.frombytes("RGB", (side, side * 3 // 4), os.urandom(side * (side * 3 // 4) * 3))
        out = io.BytesIO()
        image.save(out, format="JPEG", quality=90)
        if out.tell() >= size_bytes:
            return out.getvalue()
        side = int(side * (size_bytes / out.tell()) ** 0.5) + 16
