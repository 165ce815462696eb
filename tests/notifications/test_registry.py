"""Issue 36 §1: every kind of message is declared once, in the app that sends it (apps.notifications.registry).
This test walks the whole registry, so a new kind is checked the moment it is declared: both its templates render
with a sample and miss nothing, a member finds it under Meldingen on /account when it is theirs to choose, and its
mail carries a one-click unsubscribe exactly when it should (never on an answer to the member's own action)."""

import datetime
import html
import importlib
import pathlib
import re
import subprocess
import sys

import pytest
from allauth.account.models import EmailAddress
from django.conf import settings as django_settings
from django.core.exceptions import ValidationError
from django.utils import timezone
from django_tasks.base import Task

from apps.notifications import queueing, tasks
from apps.notifications.messages import build_message
from apps.notifications.models import InvitationOptOut, Mail, Notice
from apps.notifications.notices import channels_for, notice_mail_queue
from apps.notifications.registry import ADDRESS, GUEST, KINDS, MAIL_KINDS, MEMBER, MessageKind, validate_kind
from tests.factories import EventFactory, EventGuestFactory, InvitationFactory, UserFactory

pytestmark = pytest.mark.django_db

MISSING = "«ONTBREEKT:%s»"
EVERY_KIND = sorted({kind.name: kind for kind in KINDS.values()}.values(), key=lambda kind: kind.name)


@pytest.fixture
def strict_templates(settings):
    """A variable a template asks for and the context does not have shows up in the output."""
    templates = [dict(engine, OPTIONS=dict(engine.get("OPTIONS", {}))) for engine in settings.TEMPLATES]
    templates[0]["OPTIONS"]["string_if_invalid"] = MISSING
    settings.TEMPLATES = templates


def _sample_mail(kind: MessageKind) -> Mail:
    """A mail of this kind about real rows: a member, an event with a guest, an invitation, a new address."""
    member = UserFactory(full_name="Anna de Vries")
    event = EventFactory(
        title="Nieuwjaarsduik", location="Scheveningen", event_date=timezone.now() + datetime.timedelta(days=3)
    )
    if not kind.own_mail and not kind.prerendered:
        # Told as the notice's own text, rendered when it is queued.
        notice = Notice(
            user=member, kind=kind.name, title="Een titel", body="Een tekst", url="/events", event_id=event.pk
        )
        mail = notice_mail_queue(notice=notice)
        assert mail is not None
        return mail
    fields: dict = {"kind": kind.mail_kind, "event_id": event.pk}
    if kind.recipient == MEMBER:
        fields |= {"user": member, "to_email": member.email}
    elif kind.recipient == GUEST:
        guest = EventGuestFactory(event=event, name="Gast Bram")
        fields |= {"guest_id": guest.pk, "to_email": guest.email}
    else:
        invitation = InvitationFactory(email="nieuw@example.nl", invited_by=member)
        fields |= {"invitation": invitation, "to_email": invitation.email}
    if kind.name == "email_confirmation":
        fields["email_address"] = EmailAddress.objects.create(user=member, email="anna@nieuw.nl", verified=False)
    if kind.prerendered:
        fields |= {"subject": "Onderwerp", "body_text": "Tekst", "body_html": "<p>Tekst</p>"}
    return Mail.objects.create(**fields)


def test_every_kind_has_one_declaration():
    assert EVERY_KIND, "the apps' notices.py were not imported"
    for kind in EVERY_KIND:
        assert KINDS[kind.name] is kind and MAIL_KINDS[kind.mail_kind] is kind
        assert kind.recipient in (MEMBER, GUEST, ADDRESS)
        if kind.chosen:
            assert kind.group, kind.name
        assert kind.own_mail == bool(kind.subject), f"{kind.name}: a mail of its own needs a subject"
        # They fit the columns they are stored in (Mail.kind, Notice.kind and NoticePreference.kind).
        assert len(kind.mail_kind) <= Mail._meta.get_field("kind").max_length
        assert len(kind.name) <= Notice._meta.get_field("kind").max_length


@pytest.mark.parametrize("kind", EVERY_KIND, ids=lambda kind: kind.name)
def test_every_kind_renders_both_templates_with_a_sample(kind, strict_templates):
    mail = _sample_mail(kind)
    message = build_message(mail)
    text = message.body
    [(page, mimetype)] = message.alternatives
    assert mimetype == "text/html"
    assert text.strip() and (kind.prerendered or "<html" in str(page))
    assert "ONTBREEKT" not in text and "ONTBREEKT" not in str(page), re.findall(r"«ONTBREEKT:[^»]*»", text + str(page))
    assert message.subject and "{" not in message.subject
    if kind.prerendered:
        return
    if kind.recipient == MEMBER:
        assert "Anna de Vries" in text and "Anna de Vries" in html.unescape(str(page))
    if kind.recipient == GUEST:
        # A guest's mails greet neutrally: the name is what a visitor typed, next to any address (issue 35).
        assert "Gast Bram" not in text and "Gast Bram" not in str(page)


@pytest.mark.parametrize("kind", EVERY_KIND, ids=lambda kind: kind.name)
def test_a_one_click_unsubscribe_where_it_should_be_and_none_on_answers(kind, client):
    """A mail one can stop (every kind a member chooses for, and an invitation) has RFC 8058's one-click link,
    and it works; an answer to the recipient's own action (a new address, their export, a guest's sign-up) has none."""
    should = kind.chosen or kind.recipient == ADDRESS
    assert bool(kind.unsubscribe) == should, kind.name
    if kind.prerendered:
        return
    message = build_message(_sample_mail(kind))
    if not should:
        assert "List-Unsubscribe" not in message.extra_headers
        return
    link = message.extra_headers["List-Unsubscribe"].strip("<>")
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert link in message.body
    response = client.post(link.removeprefix(django_settings.SITE_URL.rstrip("/")))
    assert response.status_code == 200 and "Afmelden voor deze e-mails" in response.content.decode()
    # And it turns off what it says: this kind for the member, invitations for the address.
    if kind.recipient == ADDRESS:
        assert InvitationOptOut.objects.filter(email=message.to[0]).exists()
    else:
        mail = Mail.objects.get(to_email=message.to[0], kind=kind.mail_kind)
        assert channels_for(mail.user)[kind.name] == "off"


def test_every_kind_a_member_chooses_is_under_meldingen_on_the_account_page(member_client):
    page = member_client.get("/account").content.decode()
    meldingen = page[page.index('id="meldingen"') :]
    for kind in EVERY_KIND:
        radio = f'name="kind_{kind.name}"'
        if kind.chosen:
            assert html.escape(kind.label) in meldingen and radio in meldingen, kind.name
            for channel in ("push", "mail", "off"):
                assert f'{radio} value="{channel}"' in meldingen
        else:
            assert radio not in page, kind.name


def test_a_kind_the_registry_does_not_know_is_refused():
    validate_kind("event_changed")
    validate_kind("waitlist_offer")  # a kind's mail name
    with pytest.raises(ValidationError):
        validate_kind("verzonnen")
    with pytest.raises(ValidationError):
        Mail(kind="verzonnen", to_email="a@example.nl").full_clean(exclude=["user", "invitation", "email_address"])


def test_a_kind_is_declared_once():
    from apps.notifications.registry import message_kinds_register

    with pytest.raises(ValueError, match="twice"):
        message_kinds_register(MessageKind("event_changed", label="Iets anders", group="Events"))


def _circles() -> list[list[str]]:
    sys.path.insert(0, str(pathlib.Path(django_settings.BASE_DIR) / "tools"))
    try:
        import import_cycles
    finally:
        sys.path.pop(0)
    return import_cycles.cycles(pathlib.Path(django_settings.BASE_DIR) / "apps" / "notifications")


def test_the_registry_and_the_mail_texts_are_in_no_import_circle():
    """The kinds, their registry and the mail texts sit below delivery: nothing they import reaches back up."""
    in_circles = {module for circle in _circles() for module in circle}
    below = {"registry", "kinds", "messages", "models", "links", "selectors", "views", "push_views"}
    assert not {f"apps.notifications.{name}" for name in below} & in_circles
    # What is left closes only through the background tasks' entry points (tasks.py imports the work it runs).
    assert all("apps.notifications.tasks" in circle for circle in _circles())


def test_the_modules_of_notifications_import_in_a_line():
    """No import circle inside the notifications app (module level and inside functions alike): `python
    tools/import_cycles.py apps/notifications`."""
    script = pathlib.Path(django_settings.BASE_DIR) / "tools" / "import_cycles.py"
    result = subprocess.run(
        [sys.executable, str(script), "apps/notifications"],
        capture_output=True,
        text=True,
        cwd=django_settings.BASE_DIR,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_each_app_declares_its_kinds_in_its_own_notices_module():
    owners = {kind.name: kind.context.__module__ if kind.context else None for kind in EVERY_KIND}
    assert owners["event_changed"] == "apps.events.notices"
    assert owners["buddy_request"] == "apps.together.notices"
    assert owners["reaction"] == "apps.club.notices"
    assert owners["dip_nudge"] == "apps.reminders.notices"
    assert owners["export_ready"] == "apps.logbook.notices"
    notifications = importlib.import_module("apps.notifications.kinds")
    assert not any(hasattr(notifications, name) for name in ("EVENT_CHANGED", "BUDDY_REQUEST", "REACTION"))


def test_every_task_is_registered_with_the_seam_the_work_modules_enqueue_through():
    """tasks.py sits at the top of the line; the modules below enqueue through apps.notifications.queueing, which
    must know every task, under the path queued rows name."""
    defined = {name: value for name, value in vars(tasks).items() if isinstance(value, Task)}
    assert set(defined) == {
        "deliver_mails",
        "send_invitation_mails",
        "deliver_notices",
        "notices_check_claims",
        "club_message_fan_out",
    }
    for name, task in defined.items():
        assert queueing._TASKS[name] is task
        assert queueing.task_path(name) == f"apps.notifications.tasks.{name}"
