"""/club's feed as cached sections (issue 37): each item is a section of its own, kept by the item's version
(FeedEntry.version: what it shows), so another member's dip renders one new item, not the feed; and every write
that changes an item shows on the next visit: a Brrr!, an admin hiding it, the owner's sharing and photo choices,
an edited dip, a renamed member, an account that is gone. The feed's first page is one query
(tests/club/test_feed_first_page.py)."""

from decimal import Decimal

import pytest
from django.core.cache import caches
from django.test import Client

from apps.accounts.removal import account_delete
from apps.accounts.services import account_profile_update
from apps.challenges.conditions import DipConditions
from apps.challenges.services.dip_changes import dip_details_update
from apps.challenges.services.dips import dip_register
from apps.club.services import brrr_set, club_sharing_set, item_hide
from apps.core.stored_html import decompressed
from tests.factories import ClubSharingFactory, DipFactory, UserChallengeFactory, UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "een-lang-wachtwoord-42"


def _sharer(name: str):
    user = UserFactory(full_name=name)
    user.set_password(PASSWORD)
    user.save(update_fields=["password"])
    ClubSharingFactory(user=user)
    return user


def _dips(owner, count: int, spot: str = "Sloterplas"):
    card = UserChallengeFactory(user=owner)
    return [DipFactory(user_challenge=card, spot=f"{spot} {number}") for number in range(count)]


@pytest.fixture
def viewer(member):
    client = Client()
    client.force_login(member)
    return client


def _page(client) -> str:
    response = client.get("/club")
    assert response.status_code == 200
    return response.content.decode()


class _Stored:
    """The feed's items the pages cache stored: a page stores its new sections with it (set_many, or set for
    one), and an item is the section that holds one of the feed's articles."""

    def __init__(self, monkeypatch):
        self.items: list[str] = []
        cache = caches["pages"]
        original_set, original_set_many = cache.set, cache.set_many
        inside_set_many = []  # a backend's set_many may call its set: counted once

        def set_many(values, *args, **kwargs):
            self.items.extend(key for key, value in values.items() if _is_feed_item(value))
            inside_set_many.append(True)
            try:
                return original_set_many(values, *args, **kwargs)
            finally:
                inside_set_many.pop()

        def set_(key, value, *args, **kwargs):
            if not inside_set_many and _is_feed_item(value):
                self.items.append(key)
            return original_set(key, value, *args, **kwargs)

        monkeypatch.setattr(cache, "set_many", set_many)
        monkeypatch.setattr(cache, "set", set_)


def _is_feed_item(value) -> bool:
    # A section: its compressed HTML and its end; a page: its versions, its compressed HTML, its sections.
    if not isinstance(value, tuple) or len(value) != 2:
        return False
    return 'class="card club-item"' in decompressed(value[0]).decode()


def test_another_members_dip_renders_one_new_item_and_keeps_the_others(viewer, monkeypatch):
    kees = _sharer("Kees Koud")
    _dips(kees, 5)
    stored = _Stored(monkeypatch)
    first = _page(viewer)
    assert len(stored.items) == 5  # every item rendered once
    anna = _sharer("Anna Ijs")
    card = UserChallengeFactory(user=anna)
    dip_register(user=anna, conditions=DipConditions(spot="de Vijver"))
    assert card.dips.count() == 1
    second = _page(viewer)
    assert "Anna Ijs plonste in de Vijver" in second and "Anna Ijs" not in first
    assert len(stored.items) == 6, "only the new dip's item was rendered"
    for number in range(5):
        assert f"Kees Koud plonste in Sloterplas {number}" in second


def test_a_brrr_shows_on_the_next_visit(viewer, member, other_member):
    kees = _sharer("Kees Koud")
    dip = _dips(kees, 2)[0]
    assert "× Brrr!" not in _page(viewer)
    brrr_set(user=other_member, kind="dip", object_id=dip.pk, given=True)
    html = _page(viewer)
    assert "1 × Brrr!" in html and "Otto Ander" in html
    brrr_set(user=member, kind="dip", object_id=dip.pk, given=True)
    html = _page(viewer)
    assert "2 × Brrr!" in html and 'aria-pressed="true"' in html
    brrr_set(user=member, kind="dip", object_id=dip.pk, given=False)
    html = _page(viewer)
    assert "1 × Brrr!" in html and 'aria-pressed="true"' not in html


def test_a_hidden_item_is_gone_on_the_next_visit(viewer, admin_user):
    kees = _sharer("Kees Koud")
    hidden, kept = _dips(kees, 2)
    assert "Sloterplas 0" in _page(viewer)
    item_hide(actor=admin_user, kind="dip", object_id=hidden.pk)
    html = _page(viewer)
    assert "Sloterplas 0" not in html and "Sloterplas 1" in html


def test_the_owners_sharing_and_photo_choices_show_on_the_next_visit(viewer):
    kees = _sharer("Kees Koud")
    dip = _dips(kees, 1)[0]
    dip.photo, dip.share_photo = "dips/kees.jpg", False
    dip.save(update_fields=["photo", "share_photo"])
    assert "Kees Koud plonste" in _page(viewer)
    assert f"/club/foto/{dip.pk}" not in _page(viewer)
    from apps.challenges.services.sharing import dip_photo_share_set

    dip_photo_share_set(user=kees, dip_id=dip.pk, share=True)
    assert f"/club/foto/{dip.pk}" in _page(viewer)
    club_sharing_set(user=kees, share_dips=False)
    assert "Kees Koud plonste" not in _page(viewer)
    club_sharing_set(user=kees, share_dips=True)
    assert "Kees Koud plonste" in _page(viewer)


def test_an_edited_dip_and_a_renamed_member_show_on_the_next_visit(viewer):
    kees = _sharer("Kees Koud")
    dip = _dips(kees, 1)[0]
    assert "Kees Koud plonste in Sloterplas 0" in _page(viewer)
    dip_details_update(
        user=kees, dip_id=dip.pk, conditions=DipConditions(water_temperature=Decimal("4.5"), spot="de Amstel")
    )
    assert "Kees Koud plonste in de Amstel · 4,5 °C" in _page(viewer)
    account_profile_update(user=kees, full_name="Kees Ijskoud", email=kees.email, newsletter_consent=False)
    html = _page(viewer)
    assert "Kees Ijskoud plonste in de Amstel" in html and "Kees Koud" not in html


def test_an_account_that_is_gone_takes_its_items_and_brrrs_along(viewer, member):
    kees, otto = _sharer("Kees Koud"), _sharer("Otto Weg")
    dip = _dips(kees, 1)[0]
    _dips(otto, 1, spot="Otto's plas")
    brrr_set(user=otto, kind="dip", object_id=dip.pk, given=True)
    html = _page(viewer)
    assert "1 × Brrr!" in html and "Otto Weg plonste" in html
    account_delete(user=otto, password=PASSWORD)
    html = _page(viewer)
    assert "Otto Weg" not in html and "× Brrr!" not in html and "Kees Koud plonste" in html


def test_each_member_sees_her_own_brrr_state_and_role(viewer, member, other_member, admin_user):
    kees = _sharer("Kees Koud")
    dip = _dips(kees, 1)[0]
    brrr_set(user=member, kind="dip", object_id=dip.pk, given=True)
    mine = _page(viewer)
    other, admin = Client(), Client()
    other.force_login(other_member)
    admin.force_login(admin_user)
    theirs, admins = _page(other), _page(admin)
    assert 'aria-pressed="true"' in mine and 'aria-pressed="true"' not in theirs
    assert "Verbergen" in admins and "Verbergen" not in mine and "Verbergen" not in theirs
