"""Uploaded badge art, served to anyone: it is public, unlike photos. Names are random and never
reused, so a browser may keep a file for a year."""

import re

from django.http import FileResponse, Http404
from django.views.decorators.http import require_safe

from ..badge_art import badge_art_storage

ART_NAME = re.compile(r"^[0-9a-f]{32}\.png$")


@require_safe
def badge_art(request, name: str):
    if not ART_NAME.match(name):
        raise Http404
    try:
        handle = badge_art_storage().open(name, "rb")
    except (FileNotFoundError, NotImplementedError) as exc:
        raise Http404 from exc
    response = FileResponse(handle, content_type="image/png")
    response["Cache-Control"] = "public, max-age=31536000, immutable"
    return response
