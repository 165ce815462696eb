"""Physical badges: their status (posted, handed over) and the member's postal address they go to."""

import datetime

from django.db import models, transaction
from django.utils import timezone

from apps.accounts.models import User
from apps.challenges.models import PhysicalStatus, UserBadge
from apps.challenges.services.errors import ChallengeError
from apps.core.page_cache import CLUB, MEMBER, pages_changed

from .models import PostalAddress
from .refusals import ShippingRefusal

MESSAGE_PHYSICAL_NOTHING_CHOSEN = "Kies eerst een of meer badges."
MESSAGE_PHYSICAL_BAD_STATUS = "Kies een geldige status."
MESSAGE_PHYSICAL_FUTURE_DATE = "De datum kan niet in de toekomst liggen."
PHYSICAL_MARK_MAX = 1000  # one admin click; more is a mistake or an attack


def physical_badges_mark(
    *, award_ids: list[int], status: str, on: datetime.date | None = None, today: datetime.date | None = None
) -> int:
    """Give earned badges a physical status (back to waiting, sent or handed over, with the date).
    Returns how many changed."""
    today = today or timezone.localdate()
    if status not in PhysicalStatus.values:
        raise ChallengeError(MESSAGE_PHYSICAL_BAD_STATUS, code=ShippingRefusal.BAD_STATUS)
    ids = sorted({int(pk) for pk in award_ids})[:PHYSICAL_MARK_MAX]
    if not ids:
        raise ChallengeError(MESSAGE_PHYSICAL_NOTHING_CHOSEN, code=ShippingRefusal.NOTHING_CHOSEN)
    if status == PhysicalStatus.TO_SEND:
        on = None
    else:
        on = on or today
        if on > today:
            raise ChallengeError(MESSAGE_PHYSICAL_FUTURE_DATE, code=ShippingRefusal.FUTURE_DATE)
    with transaction.atomic():
        # Locked in id order: two admins marking overlapping lists cannot deadlock.
        locked = list(
            UserBadge.objects.select_for_update().filter(pk__in=ids).order_by("pk").values_list("pk", flat=True)
        )
        changed = UserBadge.objects.filter(pk__in=locked).update(physical_status=status, physical_status_on=on)
        owners = UserBadge.objects.filter(pk__in=locked).values_list("user_id", flat=True)
        pages_changed(MEMBER, CLUB, user_ids=owners)  # their badges' status; the counts per status on /admin
        return changed


# --- the member's postal address (only for physical badges) ------------------------------------------

MESSAGE_ADDRESS_INCOMPLETE = "Vul straat en huisnummer, postcode en plaats in (of laat alles leeg)."
MESSAGE_ADDRESS_TOO_LONG = "{field} mag hoogstens {max} tekens lang zijn."


def postcode_normalise(postcode: str) -> str:
    """ "1234 ab" is "1234 AB". The forms normalise with it too, so their length check sees the stored value."""
    return postcode.strip().upper()


def postal_address_save(
    *, user: User, recipient: str, street: str, postcode: str, city: str, country: str
) -> PostalAddress | None:
    """Save the member's address; all required parts empty removes it (it is optional)."""
    values = {
        "recipient": recipient.strip(),
        "street": street.strip(),
        "postcode": postcode_normalise(postcode),
        "city": city.strip(),
        "country": country.strip() or "Nederland",
    }
    if not (values["street"] or values["postcode"] or values["city"] or values["recipient"]):
        postal_address_delete(user=user)
        return None
    if not (values["street"] and values["postcode"] and values["city"]):
        raise ChallengeError(MESSAGE_ADDRESS_INCOMPLETE, code=ShippingRefusal.ADDRESS_INCOMPLETE)
    # Checked after normalising: upper() can make text longer ("ß" is "SS"), past what the form checked.
    for name, value in values.items():
        field = PostalAddress._meta.get_field(name)
        assert isinstance(field, models.CharField) and field.max_length is not None  # text fields, all with a length
        if len(value) > field.max_length:
            label = str(field.verbose_name).capitalize()  # "Postcode", "Straat en huisnummer"
            raise ChallengeError(
                MESSAGE_ADDRESS_TOO_LONG.format(field=label, max=field.max_length),
                code=ShippingRefusal.ADDRESS_TOO_LONG,
            )
    with transaction.atomic():
        User.objects.select_for_update().only("pk").get(pk=user.pk)
        address, _ = PostalAddress.objects.update_or_create(user=user, defaults=values)
        pages_changed(MEMBER, user_ids=[user.pk])  # the address form on /account
        return address


def postal_address_delete(*, user: User) -> None:
    with transaction.atomic():
        PostalAddress.objects.filter(user=user).delete()
        pages_changed(MEMBER, user_ids=[user.pk])  # the address form on /account
