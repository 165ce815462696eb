"""Brrr!: give and take back (idempotent, race-safe on PostgreSQL), the count and who; admins hide items."""

import pytest
from django.db import transaction

from apps.challenges.services.dip_changes import dip_delete
from apps.club.models import Brrr, HiddenItem
from apps.club.services import (
    ClubItemNotFoundError,
    ClubPermissionError,
    brrr_set,
    club_sharing_set,
    item_hide,
)
from tests.concurrency import requires_postgresql, run_concurrently
from tests.factories import ClubSharingFactory, DipFactory, EventFactory, UserChallengeFactory, UserFactory


@pytest.fixture
def shared_dip(db):
    owner = UserFactory(full_name="Kees Koud")
    ClubSharingFactory(user=owner)
    return DipFactory(user_challenge=UserChallengeFactory(user=owner), spot="Sloterplas")


pytestmark = pytest.mark.django_db


def test_give_twice_is_one_brrr_and_take_back_twice_is_none(member, shared_dip):
    for _ in range(2):
        state = brrr_set(user=member, kind="dip", object_id=shared_dip.pk, given=True)
    assert state.count == 1 and Brrr.objects.get().owner_id == shared_dip.user_id
    for _ in range(2):
        state = brrr_set(user=member, kind="dip", object_id=shared_dip.pk, given=False)
    assert state.count == 0 and not Brrr.objects.exists()


def test_an_item_that_does_not_show_takes_no_brrr(member, shared_dip, admin_user):
    with pytest.raises(ClubItemNotFoundError):
        brrr_set(user=member, kind="dip", object_id=shared_dip.pk + 1000, given=True)
    with pytest.raises(ClubItemNotFoundError):
        brrr_set(user=member, kind="onbekend", object_id=1, given=True)
    club_sharing_set(user=shared_dip.user, share_dips=False)
    with pytest.raises(ClubItemNotFoundError):
        brrr_set(user=member, kind="dip", object_id=shared_dip.pk, given=True)
    club_sharing_set(user=shared_dip.user, share_dips=True)
    item_hide(actor=admin_user, kind="dip", object_id=shared_dip.pk)
    with pytest.raises(ClubItemNotFoundError):
        brrr_set(user=member, kind="dip", object_id=shared_dip.pk, given=True)
    assert not Brrr.objects.exists()


def test_the_page_shows_the_count_who_and_the_members_own_state(client, member, other_member, shared_dip):
    event = EventFactory(title="Nieuwjaarsduik")
    brrr_set(user=other_member, kind="dip", object_id=shared_dip.pk, given=True)
    client.force_login(member)
    response = client.post("/club/brrr", {"item": f"dip:{shared_dip.pk}", "given": "1"})
    assert response.status_code == 302 and response["Location"] == f"/club#item-dip-{shared_dip.pk}"
    client.post("/club/brrr", {"item": f"event:{event.pk}", "given": "1"})
    html = client.get("/club").content.decode()
    item = html[html.index(f'id="item-dip-{shared_dip.pk}"') :]
    item = item[: item.index("</article>")]
    assert "2 × Brrr!" in item and "Otto Ander" in item and "Marit Zwemmer" in item
    assert 'aria-pressed="true"' in item and 'name="given" value="0"' in item
    assert not Brrr.objects.filter(kind="event").exists()  # an event announcement takes no Brrr! (issue 34 §6)
    # Taken back: the button shows the other state again.
    client.post("/club/brrr", {"item": f"dip:{shared_dip.pk}", "given": "0"})
    html = client.get("/club").content.decode()
    item = html[html.index(f'id="item-dip-{shared_dip.pk}"') :]
    assert (
        "1 × Brrr!" in item[: item.index("</article>")] and 'aria-pressed="false"' in item[: item.index("</article>")]
    )


@pytest.mark.parametrize("item", ["", "dip", "dip:", "dip:abc", "dip:-1", "dip:99999999", "x:1", "dip:" + "9" * 40])
def test_a_wrong_item_is_a_message_never_a_500(member_client, item):
    response = member_client.post("/club/brrr", {"item": item, "given": "1"})
    assert response.status_code == 302 and response["Location"] == "/club"
    assert not Brrr.objects.exists()


def test_a_brrr_keeps_the_page_of_the_feed(member_client, shared_dip):
    from apps.club.feed import Cursor

    cursor = Cursor(shared_dip.created_at, "dip", shared_dip.pk + 1).encode()
    response = member_client.post("/club/brrr", {"item": f"dip:{shared_dip.pk}", "given": "1", "na": cursor})
    assert response["Location"] == f"/club?na={cursor}#item-dip-{shared_dip.pk}"


def test_brrrs_and_hidden_marks_of_items_that_are_gone_are_swept(member, admin_user, shared_dip, capsys):
    from django.core.management import call_command

    from apps.club.services import club_orphans_remove

    event = EventFactory()
    kept = DipFactory(user_challenge=UserChallengeFactory(user=shared_dip.user, is_active=False))
    for kind, object_id in (("dip", shared_dip.pk), ("dip", kept.pk)):
        brrr_set(user=member, kind=kind, object_id=object_id, given=True)
    # One given before events took none (issue 34 §6): written past the service, swept all the same.
    Brrr.objects.create(user=member, kind="event", object_id=event.pk)
    item_hide(actor=admin_user, kind="dip", object_id=shared_dip.pk)
    Brrr.objects.create(user=member, kind="verdwenen-soort", object_id=1)
    dip_delete(dip_id=shared_dip.pk)
    event.delete()
    assert club_orphans_remove() == 4
    assert list(Brrr.objects.values_list("kind", "object_id")) == [("dip", kept.pk)]
    assert not HiddenItem.objects.exists()
    call_command("send_brrr_notices")
    assert "0 Brrr!s bij verdwenen berichten opgeruimd" in capsys.readouterr().out


def test_deleting_an_account_removes_its_brrrs_and_sharing_choice(member, shared_dip):
    from apps.accounts.removal import account_delete
    from apps.club.models import ClubSharing
    from tests.factories import DEFAULT_PASSWORD

    brrr_set(user=member, kind="dip", object_id=shared_dip.pk, given=True)
    club_sharing_set(user=member, share_dips=True)
    account_delete(user=member, password=DEFAULT_PASSWORD)
    assert not Brrr.objects.exists() and not ClubSharing.objects.filter(user_id=member.pk).exists()
    # The owner of the item leaving takes the Brrr!s on their items along too.
    other = UserFactory()
    brrr_set(user=other, kind="dip", object_id=shared_dip.pk, given=True)
    owner = shared_dip.user
    account_delete(user=owner, password=DEFAULT_PASSWORD)
    assert not Brrr.objects.exists()


# --- admins hide ----------------------------------------------------------------------------------------


def test_only_an_admin_hides_and_hiding_twice_is_once(member, bare_admin, admin_user, shared_dip):
    for someone in (member, bare_admin):
        with pytest.raises(ClubPermissionError):
            item_hide(actor=someone, kind="dip", object_id=shared_dip.pk)
    item_hide(actor=admin_user, kind="dip", object_id=shared_dip.pk)
    item_hide(actor=admin_user, kind="dip", object_id=shared_dip.pk)
    assert HiddenItem.objects.get().hidden_by == admin_user


def test_the_hide_button_is_for_admins_only(client, member, bare_admin, admin_user, shared_dip):
    for someone in (member, bare_admin):
        client.force_login(someone)
        assert "Verbergen" not in client.get("/club").content.decode()
        response = client.post("/club/verbergen", {"item": f"dip:{shared_dip.pk}"})
        assert response.status_code == 302 and not HiddenItem.objects.exists()
    client.force_login(admin_user)
    assert "Verbergen" in client.get("/club").content.decode()
    response = client.post("/club/verbergen", {"item": f"dip:{shared_dip.pk}"})
    assert response.status_code == 302 and HiddenItem.objects.exists()
    assert "Kees Koud" not in client.get("/club").content.decode()
    client.force_login(member)
    assert "Kees Koud" not in client.get("/club").content.decode()


# --- race-safety on PostgreSQL --------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_many_taps_at_once_by_one_member_are_one_brrr():
    requires_postgresql()
    owner = UserFactory()
    ClubSharingFactory(user=owner)
    dip = DipFactory(user_challenge=UserChallengeFactory(user=owner))
    tapper = UserFactory()
    results = run_concurrently(lambda _i: brrr_set(user=tapper, kind="dip", object_id=dip.pk, given=True), times=8)
    assert not [result for result in results if isinstance(result, Exception)]
    assert Brrr.objects.filter(user=tapper).count() == 1


@pytest.mark.django_db(transaction=True)
def test_many_members_at_once_are_each_counted_once():
    requires_postgresql()
    owner = UserFactory()
    ClubSharingFactory(user=owner)
    dip = DipFactory(user_challenge=UserChallengeFactory(user=owner))
    members = [UserFactory() for _ in range(8)]
    results = run_concurrently(
        lambda i: brrr_set(user=members[i], kind="dip", object_id=dip.pk, given=i % 2 == 0), times=8
    )
    assert not [result for result in results if isinstance(result, Exception)]
    assert Brrr.objects.filter(kind="dip", object_id=dip.pk).count() == 4


@pytest.mark.django_db(transaction=True)
def test_two_admins_hiding_at_once_hide_once():
    requires_postgresql()
    from tests.factories import AdminFactory

    owner = UserFactory()
    ClubSharingFactory(user=owner)
    dip = DipFactory(user_challenge=UserChallengeFactory(user=owner))
    admins = [AdminFactory() for _ in range(4)]
    results = run_concurrently(lambda i: item_hide(actor=admins[i], kind="dip", object_id=dip.pk), times=4)
    assert not [result for result in results if isinstance(result, Exception)]
    assert HiddenItem.objects.count() == 1
    with transaction.atomic():
        assert not Brrr.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_the_sharing_choice_made_twice_at_once_is_one_row():
    requires_postgresql()
    member = UserFactory()
    results = run_concurrently(lambda i: club_sharing_set(user=member, share_dips=i % 2 == 0), times=6)
    assert not [result for result in results if isinstance(result, Exception)]
    from apps.club.models import ClubSharing

    assert ClubSharing.objects.filter(user=member).count() == 1


def test_brrr_only_on_other_members_dips_and_badges_and_the_button_only_there(client, member, shared_dip):
    """Issue 34 §6: not on one's own item, a plonsafspraak, an event announcement, a club message or a completed club
    challenge; the server refuses with a code, the page shows no button there, and a badge of another takes one."""
    from django.utils import timezone

    from apps.club.refusals import ClubRefusal
    from apps.club.services import ClubError
    from tests.factories import (
        ClubChallengeEntryFactory,
        ClubChallengeFactory,
        ClubMessageFactory,
        MeetupFactory,
        UserBadgeFactory,
    )

    ClubSharingFactory(user=member)
    own = DipFactory(user_challenge=UserChallengeFactory(user=member))
    event, message = EventFactory(title="Nieuwjaarsduik"), ClubMessageFactory(title="Zondag samen")
    meetup = MeetupFactory(proposer=shared_dip.user, place="Sloterplas")
    completed = ClubChallengeEntryFactory(
        user=shared_dip.user, club_challenge=ClubChallengeFactory(name="Decemberduik"), completed_at=timezone.now()
    )
    badge = UserBadgeFactory(user=shared_dip.user)
    refused_items = (
        ("dip", own.pk),
        ("event", event.pk),
        ("message", message.pk),
        ("meetup", meetup.pk),
        ("clubchallenge", completed.pk),
    )
    for kind, object_id in refused_items:
        with pytest.raises(ClubError) as refused:
            brrr_set(user=member, kind=kind, object_id=object_id, given=True)
        assert refused.value.code == ClubRefusal.BRRR_NOT_HERE, kind
    assert brrr_set(user=member, kind="dip", object_id=shared_dip.pk, given=True).count == 1
    assert brrr_set(user=member, kind="badge", object_id=badge.pk, given=True).count == 1
    client.force_login(member)
    for kind, object_id in refused_items:  # the form posted anyway: a message, nothing written
        response = client.post("/club/brrr", {"item": f"{kind}:{object_id}", "given": "1"})
        assert response.status_code == 302
    html = client.get("/club").content.decode()

    def article(key: str) -> str:
        part = html[html.index(f'id="item-{key}"') :]
        return part[: part.index("</article>")]

    assert "club-brrr" in article(f"dip-{shared_dip.pk}") and "club-brrr" in article(f"badge-{badge.pk}")
    for kind, object_id in refused_items:
        assert "club-brrr" not in article(f"{kind}-{object_id}"), kind
    assert sorted(Brrr.objects.values_list("kind", "object_id")) == [("badge", badge.pk), ("dip", shared_dip.pk)]
