"""The HTTP session that takes a push to the address push_transport vetted. Only the worker that pushes
imports it: requests and urllib3 are some 18 MB that a web process (or a photo upload) does not need."""

from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter

from .push_transport import vetted_address


class PinnedAdapter(HTTPAdapter):
    """Connects to the vetted address of the request's host, keeping the name for SNI, the certificate check
    and the Host header; urllib3 keeps a pool of kept-alive connections per (address, name)."""

    def send(self, request, *args, **kwargs):
        request.headers["Host"] = urlsplit(request.url).netloc
        return super().send(request, *args, **kwargs)

    def build_connection_pool_key_attributes(self, request, verify, cert=None):
        host_params, pool_kwargs = super().build_connection_pool_key_attributes(request, verify, cert)
        name = host_params["host"]
        host_params["host"] = vetted_address(request.url)
        if host_params["scheme"] == "https":
            pool_kwargs["server_hostname"] = name
            pool_kwargs["assert_hostname"] = name
        return host_params, pool_kwargs


class PushSession(requests.Session):
    """A session that never follows a redirect (a 3xx is that device's failure) and ignores proxy variables."""

    def __init__(self):
        super().__init__()
        self.trust_env = False
        self.max_redirects = 0
        adapter = PinnedAdapter(pool_connections=16, pool_maxsize=4, max_retries=0)
        self.mount("https://", adapter)
        self.mount("http://", adapter)

    def send(self, request, **kwargs):
        kwargs["allow_redirects"] = False
        return super().send(request, **kwargs)
