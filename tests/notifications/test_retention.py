"""Failed mails are retried by the cron command; a member's new data leaves with the account."""

import datetime

import pytest
from django.utils import timezone

from apps.accounts.removal import user_delete
from apps.events.models import CalendarFeed, EventWaitlistEntry
from apps.events.services import calendar_feed_renew, event_sign_up
from apps.notifications.models import Mail, MailPreference
from apps.notifications.services import MAX_ATTEMPTS, mail_preference_set, mails_retry_failed
from tests.factories import EventFactory, EventParticipantFactory, InvitationFactory, UserFactory
from tests.mailbox import run_worker

pytestmark = pytest.mark.django_db


def failed_mail(*, minutes_ago: int, attempts: int = 1) -> Mail:
    invitation = InvitationFactory(email=f"mis{attempts}-{minutes_ago}@example.nl")
    return Mail.objects.create(
        kind="invitation",
        invitation=invitation,
        to_email=invitation.email,
        status=Mail.Status.FAILED,
        attempts=attempts,
        updated_at=timezone.now() - datetime.timedelta(minutes=minutes_ago),
    )


def test_the_cron_retries_failed_mails_after_a_while_and_they_go_out(smtp_server):
    due = failed_mail(minutes_ago=11)
    too_soon = failed_mail(minutes_ago=2)
    given_up = failed_mail(minutes_ago=60, attempts=MAX_ATTEMPTS)

    assert mails_retry_failed() == 1
    run_worker()

    assert [m["To"] for m in smtp_server.messages] == [due.to_email]
    statuses = dict(Mail.objects.values_list("pk", "status"))
    assert statuses == {due.pk: "sent", too_soon.pk: "failed", given_up.pk: "failed"}


def test_a_members_new_data_is_removed_with_the_account(admin_user):
    member = UserFactory()
    full = EventFactory(max_participants=1)
    EventParticipantFactory(event=full)
    event_sign_up(user=member, event_id=full.pk)
    calendar_feed_renew(user=member)
    mail_preference_set(user=member, dip_nudge=True)
    Mail.objects.create(kind="dip_nudge", user=member, to_email=member.email)

    user_delete(actor=admin_user, user_id=member.pk)

    assert not EventWaitlistEntry.objects.exists()
    assert not CalendarFeed.objects.exists()
    assert not MailPreference.objects.exists()
    assert not Mail.objects.filter(to_email=member.email).exists()


def test_a_deleted_participant_account_offers_its_place_to_the_waitlist(admin_user, django_capture_on_commit_callbacks):
    full = EventFactory(max_participants=1)
    leaving = EventParticipantFactory(event=full).user
    waiting = UserFactory()
    event_sign_up(user=waiting, event_id=full.pk)

    with django_capture_on_commit_callbacks(execute=True):
        user_delete(actor=admin_user, user_id=leaving.pk)

    assert not full.participants.exists()
    assert full.waitlist.get(user=waiting).offer_expires_at is not None
    assert Mail.objects.filter(kind="waitlist_offer", user=waiting).exists()
