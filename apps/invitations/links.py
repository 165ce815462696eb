from urllib.parse import urlencode

from django.conf import settings


def invitation_path(code: str) -> str:
    return "/auth?" + urlencode({"invite": code})


def invitation_url(code: str, *, request=None) -> str:
    """The full link on the site's own address: from the request when there is one, else SITE_URL."""
    if request is not None:
        return request.build_absolute_uri(invitation_path(code))
    return settings.SITE_URL.rstrip("/") + invitation_path(code)
