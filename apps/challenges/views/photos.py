"""Photos are private: the member who took them and admins only. Storage URLs are never handed out
unsigned; local files stream through here, S3 objects get a short-lived signed URL."""

from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpResponseRedirect
from django.http.response import HttpResponseBase
from django.views.decorators.http import require_safe

from ..models import Dip, photo_storage


def _visible_dip(request, dip_id: int) -> Dip:
    dip = Dip.objects.filter(pk=dip_id).only("pk", "user_id", "photo", "thumbnail").first()
    # Someone else's photo is answered exactly like a missing one: its existence is private too.
    if dip is None or not dip.photo or (dip.user_id != request.user.pk and not request.user.is_admin):
        raise Http404
    return dip


def _serve(name: str):
    storage = photo_storage()
    if hasattr(storage, "bucket_name"):
        response: HttpResponseBase = HttpResponseRedirect(storage.url(name))
        response["Cache-Control"] = "private, no-store"
        return response
    try:
        handle = storage.open(name, "rb")
    except FileNotFoundError as exc:
        raise Http404 from exc
    response = FileResponse(handle, content_type="image/jpeg")
    response["Cache-Control"] = "private, max-age=3600"
    return response


def serve_photo(name: str):
    """A photo file the caller has decided may be seen (the club feed's shared photos use it too)."""
    return _serve(name)


@login_required
@require_safe
def photo(request, dip_id: int):
    return _serve(_visible_dip(request, dip_id).photo.name)


@login_required
@require_safe
def thumbnail(request, dip_id: int):
    dip = _visible_dip(request, dip_id)
    return _serve(dip.thumbnail.name or dip.photo.name)
