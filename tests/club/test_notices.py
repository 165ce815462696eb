"""The owner hears about Brrr!s batched: one mail per owner per day, whatever the number of taps."""

import datetime
import zoneinfo

import pytest
from django.core.management import call_command

from apps.club.models import Brrr
from apps.club.services import brrr_notices_send, brrr_set
from apps.notifications.models import Mail
from apps.notifications.services import mail_preference_set
from tests.concurrency import requires_postgresql, run_concurrently
from tests.factories import ClubSharingFactory, DipFactory, UserChallengeFactory, UserFactory
from tests.mailbox import run_worker, text_and_html

AMSTERDAM = zoneinfo.ZoneInfo("Europe/Amsterdam")
NOW = datetime.datetime(2099, 3, 10, 19, 0, tzinfo=AMSTERDAM)


def shared_dip(owner=None):
    owner = owner or UserFactory()
    ClubSharingFactory(user=owner)
    return DipFactory(user_challenge=UserChallengeFactory(user=owner))


def brrr_mails() -> list[Mail]:
    return list(Mail.objects.filter(kind="brrr"))


@pytest.mark.django_db
def test_many_brrrs_on_many_items_are_one_notice_per_owner():
    kees = UserFactory(full_name="Kees")
    first, second = shared_dip(kees), DipFactory(user_challenge=UserChallengeFactory(user=kees, is_active=False))
    lone = shared_dip()
    for _ in range(3):
        fan = UserFactory()
        for dip in (first, second, lone):
            brrr_set(user=fan, kind="dip", object_id=dip.pk, given=True)
    assert brrr_notices_send(now=NOW) == 2
    assert sorted(mail.user_id for mail in brrr_mails()) == sorted([kees.pk, lone.user_id])
    assert not Brrr.objects.filter(noticed_at__isnull=True).exists()
    assert brrr_notices_send(now=NOW) == 0  # nothing new


@pytest.mark.django_db
def test_brrrs_after_todays_notice_wait_for_tomorrow():
    dip = shared_dip()
    brrr_set(user=UserFactory(), kind="dip", object_id=dip.pk, given=True)
    assert brrr_notices_send(now=NOW) == 1
    brrr_set(user=UserFactory(), kind="dip", object_id=dip.pk, given=True)
    assert brrr_notices_send(now=NOW + datetime.timedelta(hours=1)) == 0
    assert Brrr.objects.filter(noticed_at__isnull=True).count() == 1
    assert brrr_notices_send(now=NOW + datetime.timedelta(days=1)) == 1
    assert len(brrr_mails()) == 2


@pytest.mark.django_db
def test_a_brrr_on_ones_own_item_and_on_an_event_tells_nobody():
    from apps.club.services import ClubError
    from tests.factories import EventFactory

    dip = shared_dip()
    # Both are refused now (issue 34 §6): nothing to tell, whatever came before.
    with pytest.raises(ClubError):
        brrr_set(user=dip.user, kind="dip", object_id=dip.pk, given=True)
    with pytest.raises(ClubError):
        brrr_set(user=UserFactory(), kind="event", object_id=EventFactory().pk, given=True)
    assert brrr_notices_send(now=NOW) == 0 and not brrr_mails()


@pytest.mark.django_db
def test_a_member_who_turned_the_mails_off_gets_none():
    dip = shared_dip()
    mail_preference_set(user=dip.user, club_notices=False)
    brrr_set(user=UserFactory(), kind="dip", object_id=dip.pk, given=True)
    brrr_notices_send(now=NOW)
    assert not brrr_mails() and not Brrr.objects.filter(noticed_at__isnull=True).exists()


@pytest.mark.django_db
def test_the_mail_links_the_club_and_unsubscribes_from_these_notices_only(smtp_server, client):
    dip = shared_dip(UserFactory(full_name="Kees Koud"))
    brrr_set(user=UserFactory(), kind="dip", object_id=dip.pk, given=True)
    call_command("send_brrr_notices")
    run_worker()
    message = smtp_server.only()
    text, html = text_and_html(message)
    assert message["Subject"] == "Brrr! Je clubgenoten zagen je plonsen"
    assert "Hallo Kees Koud" in text and "https://koudwater.example/club" in text
    assert 'href="https://koudwater.example/club"' in html
    url = message["List-Unsubscribe"].strip()[1:-1].removeprefix("https://koudwater.example")
    assert client.post(url, {"List-Unsubscribe": "One-Click"}).status_code == 200
    preference = dip.user.mail_preference
    preference.refresh_from_db()
    assert preference.club_notices is False and preference.event_mails is True and preference.dip_nudge is False


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_two_runs_at_once_tell_each_owner_once():
    requires_postgresql()
    dips = [shared_dip() for _ in range(4)]
    for dip in dips:
        for _ in range(2):
            brrr_set(user=UserFactory(), kind="dip", object_id=dip.pk, given=True)
    results = run_concurrently(lambda _i: brrr_notices_send(now=NOW), times=4)
    assert not [result for result in results if isinstance(result, Exception)]
    assert sum(results) == 4 and len(brrr_mails()) == 4
