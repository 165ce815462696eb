"""The audit log: every declared action (apps/audit/actions.py) performed the way an admin or organiser does
it (the page, the JSON endpoint, the command), and its row seen: who, what, about which object, from where.
A declared action without a performer here fails `test_every_declared_action_is_performed_here`."""

import datetime
from collections.abc import Callable

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from apps.accounts.models import User
from apps.audit.actions import AuditAction
from apps.audit.models import AuditEntry
from tests.factories import (
    AdminFactory,
    ClubSharingFactory,
    DipFactory,
    EventFactory,
    EventParticipantFactory,
    OrganiserFactory,
    PostalAddressFactory,
    UserBadgeFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

IP = "198.51.100.7"


def _client(user: User) -> Client:
    client = Client(REMOTE_ADDR=IP)
    client.force_login(user)
    return client


def delete_member(admin):
    member = UserFactory()
    assert _client(admin).post(f"/admin/api/gebruikers/{member.pk}/verwijderen").status_code == 200
    return member.pk


def grant_role(admin):
    member = UserFactory()
    response = _client(admin).post(
        f"/admin/api/gebruikers/{member.pk}/organisator", {"organiser": True}, content_type="application/json"
    )
    assert response.status_code == 200
    return member.pk


def revoke_role(admin):
    organiser = OrganiserFactory()
    response = _client(admin).post(
        f"/admin/api/gebruikers/{organiser.pk}/organisator", {"organiser": False}, content_type="application/json"
    )
    assert response.status_code == 200
    return organiser.pk


def export_subscribers(admin):
    UserFactory(newsletter_consent=True)
    assert _client(admin).get("/admin/nieuwsbrief.csv").status_code == 200


def export_users(admin):
    assert _client(admin).get("/admin/gebruikers.xlsx").status_code == 200


def export_addresses(admin):
    award = UserBadgeFactory(physical_status="te_versturen")
    PostalAddressFactory(user=award.user)
    assert _client(admin).get("/admin/fysieke-badges/te-versturen.csv").status_code == 200


def hide_feed_item(admin):
    sharing = ClubSharingFactory()
    dip = DipFactory(user_challenge__user=sharing.user)
    response = _client(admin).post("/club/verbergen", {"item": f"dip:{dip.pk}"})
    assert response.status_code == 302
    return dip.pk


def cancel_event(organiser):
    event = EventFactory()
    response = _client(organiser).post(f"/admin/events/{event.pk}/afgelasten", {"reason": "Storm op zee"})
    assert response.status_code == 302
    return event.pk


def mark_attendance(organiser):
    event = EventFactory(event_date=timezone.now() - datetime.timedelta(hours=1))
    participant = EventParticipantFactory(event=event)
    response = _client(organiser).post(f"/admin/events/{event.pk}/aanwezig", {"aanwezig": [participant.user_id]})
    assert response.status_code == 302
    return event.pk


def reset_second_factor(admin):
    from allauth.mfa.models import Authenticator

    member = AdminFactory(second_factor=True)
    factor = Authenticator.objects.get(user=member)
    response = _client(admin).post(f"/django-admin/mfa/authenticator/{factor.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Authenticator.objects.filter(pk=factor.pk).exists()
    return member.pk


def bulk_invitations(admin):
    response = _client(admin).post(
        "/admin/api/uitnodigingen/bulk", {"text": "a@example.nl, b@example.nl"}, content_type="application/json"
    )
    assert response.status_code == 201


def club_message(organiser):
    response = _client(organiser).post("/admin/clubbericht/", {"title": "Zondag", "body": "We zwemmen om 10:00."})
    assert response.status_code == 302


def remove_reply(admin):
    from apps.together.models import Reply
    from tests.factories import MeetupFactory

    reply = Reply.objects.create(author=UserFactory(), meetup=MeetupFactory(), text="Ik neem thee mee")
    response = _client(admin).post(f"/reacties/{reply.pk}/verwijderen", {"page": f"meetup-{reply.meetup_id}"})
    assert response.status_code == 302 and not Reply.objects.filter(pk=reply.pk).exists()
    return reply.pk


# action: (who does it, how, the target type the row names)
PERFORMERS: dict[AuditAction, tuple[str, Callable, str]] = {
    AuditAction.USER_DELETED: ("admin", delete_member, "user"),
    AuditAction.ROLE_GRANTED: ("admin", grant_role, "user"),
    AuditAction.ROLE_REVOKED: ("admin", revoke_role, "user"),
    AuditAction.SUBSCRIBERS_EXPORTED: ("admin", export_subscribers, ""),
    AuditAction.USERS_EXPORTED: ("admin", export_users, ""),
    AuditAction.ADDRESSES_EXPORTED: ("admin", export_addresses, ""),
    AuditAction.FEED_ITEM_HIDDEN: ("admin", hide_feed_item, "dip"),
    AuditAction.EVENT_CANCELLED: ("organiser", cancel_event, "event"),
    AuditAction.ATTENDANCE_MARKED: ("organiser", mark_attendance, "event"),
    AuditAction.SECOND_FACTOR_RESET: ("admin", reset_second_factor, "user"),
    AuditAction.INVITATIONS_BULK: ("admin", bulk_invitations, ""),
    AuditAction.CLUB_MESSAGE_SENT: ("organiser", club_message, "club_message"),
    AuditAction.REPLY_REMOVED: ("admin", remove_reply, "reply"),
}


def test_every_declared_action_is_performed_here():
    assert set(PERFORMERS) == set(AuditAction)


@pytest.mark.parametrize("action", list(PERFORMERS), ids=str)
def test_the_action_leaves_its_row(action):
    role, perform, target_type = PERFORMERS[action]
    actor = AdminFactory(email="anna@example.nl") if role == "admin" else OrganiserFactory(email="olga@example.nl")
    target_id = perform(actor)
    entry = AuditEntry.objects.get(action=action)
    assert (entry.actor_id, entry.actor_label, entry.ip, entry.target_type) == (actor.pk, actor.email, IP, target_type)
    if target_id is not None:
        assert entry.target_id == target_id
    assert "@" not in entry.detail  # a count or a role, never an address


def test_a_refused_action_leaves_no_row():
    admin = AdminFactory()
    client = _client(admin)
    assert client.post(f"/admin/api/gebruikers/{admin.pk}/verwijderen").status_code == 409  # not yourself
    event = EventFactory()
    client.post(f"/admin/events/{event.pk}/afgelasten", {"reason": "Storm"})
    client.post(f"/admin/events/{event.pk}/afgelasten", {"reason": "Nog eens"})  # already cancelled: refused
    assert list(AuditEntry.objects.values_list("action", flat=True)) == [AuditAction.EVENT_CANCELLED]


def test_the_row_is_written_in_the_actions_transaction(monkeypatch):
    """The record fails: the member is not deleted either (one transaction)."""
    import apps.accounts.removal as account_removal

    def broken(**kwargs):
        raise RuntimeError("audit down")

    monkeypatch.setattr(account_removal, "audit_record", broken)
    admin, member = AdminFactory(), UserFactory()
    with pytest.raises(RuntimeError):
        account_removal.user_delete(actor=admin, user_id=member.pk)
    assert User.objects.filter(pk=member.pk).exists()


def test_behind_a_proxy_the_visitors_address_is_kept(settings):
    settings.ALLAUTH_TRUSTED_PROXY_COUNT = 1
    admin = AdminFactory()
    client = Client(REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="203.0.113.50")
    client.force_login(admin)
    assert client.get("/admin/gebruikers.xlsx").status_code == 200
    assert AuditEntry.objects.get().ip == "203.0.113.50"


def test_the_command_export_is_recorded_as_the_operator(tmp_path):
    UserFactory(newsletter_consent=True)
    call_command("export_subscribers", "--output", str(tmp_path / "n.csv"))
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.actor_id, entry.actor_label, entry.ip) == (
        AuditAction.SUBSCRIBERS_EXPORTED,
        None,
        "manage.py export_subscribers",
        None,
    )
