"""Sharing one dip's photo with the club ("Deel deze foto met de club"): the member's own choice per dip."""

from django.db import transaction

from apps.accounts.models import User
from apps.core.page_cache import FEED, MEMBER, pages_changed

from ..models import Dip
from ..refusals import DipRefusal
from .dips import MESSAGE_DIP_UNKNOWN
from .errors import DipNotFoundError

SHARE_PHOTO_FIELD = "share_photo"


def share_photo_parse(data) -> bool | None:
    """The form's "Deel deze foto met de club": True for "1"/"true"/"on", False for "0"/"false"/"", None when
    the form did not send the field (the choice stays as it is)."""
    if SHARE_PHOTO_FIELD not in data:
        return None
    return data.get(SHARE_PHOTO_FIELD, "").strip().lower() in ("1", "true", "on", "ja")


def dip_photo_share_set(*, user: User, dip_id: int, share: bool) -> Dip:
    """Share or unshare the photo of one of the member's own dips. Someone else's dip is answered like a
    missing one (DipNotFoundError). Unshared, the photo leaves the feed and its club address at once."""
    with transaction.atomic():
        dip = Dip.objects.select_for_update().filter(pk=dip_id, user=user).first()
        if dip is None:
            raise DipNotFoundError(MESSAGE_DIP_UNKNOWN, code=DipRefusal.DIP_UNKNOWN)
        if dip.share_photo != share:
            dip.share_photo = share
            dip.save(update_fields=["share_photo"])
            pages_changed(MEMBER, FEED, user_ids=[user.pk])  # the card shows the choice; the feed the photo
    return dip
