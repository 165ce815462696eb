"""The text of each kind of mail: subject, plain text and HTML, rendered from the rows a `Mail` points at."""

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from allauth.account.models import EmailConfirmationHMAC
from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse

from apps.invitations.links import invitation_url

from .links import UnsubscribeScope, absolute_url, unsubscribe_url
from .models import Mail

SUBJECTS: dict[str, str] = {
    Mail.Kind.INVITATION: "Je bent uitgenodigd voor de Koud water challenge",
    Mail.Kind.WAITLIST_OFFER: "Er is een plek vrij bij {event}",
    Mail.Kind.GUEST_CONFIRMATION: "Je bent aangemeld als gast: {event}",
    Mail.Kind.GUEST_EVENT_CHANGED: "Gewijzigd: {event}",
    Mail.Kind.GUEST_EVENT_CANCELLED: "Afgelast: {event}",
    Mail.Kind.EVENT_REMINDER: "Morgen: {event}",
    Mail.Kind.EVENT_CHANGED: "Gewijzigd: {event}",
    Mail.Kind.DIP_NUDGE: "Al 14 dagen geen plons: het water wacht op je",
    Mail.Kind.BRRR: "Brrr! Je clubgenoten zagen je plonsen",
    Mail.Kind.EMAIL_CONFIRMATION: "Bevestig je nieuwe e-mailadres",
    Mail.Kind.EMAIL_CHANGED: "Je e-mailadres is gewijzigd",
    Mail.Kind.EXPORT_READY: "Je gegevens staan klaar om te downloaden",
    Mail.Kind.MEETUP_CANCELLED: "Een plonsafspraak gaat niet door",
    Mail.Kind.BUDDY_REQUEST: "Een clubgenoot plonste met jou",
}
# Answers to the member's own request (a new address, an export, a password reset): no unsubscribe link
# (RFC 8058 is for mail one can stop).
WITHOUT_UNSUBSCRIBE = {
    Mail.Kind.EMAIL_CONFIRMATION,
    Mail.Kind.EMAIL_CHANGED,
    Mail.Kind.EXPORT_READY,
    Mail.Kind.ACCOUNT,
    Mail.Kind.GUEST_CONFIRMATION,
    Mail.Kind.GUEST_EVENT_CHANGED,
    Mail.Kind.GUEST_EVENT_CANCELLED,
}
# Mails to an event's guest (no account): about their own sign-up, with their cancel link.
GUEST_KINDS = {Mail.Kind.GUEST_CONFIRMATION, Mail.Kind.GUEST_EVENT_CHANGED, Mail.Kind.GUEST_EVENT_CANCELLED}
# Rendered before they are queued (their text is on the row): allauth's mails and notices sent by mail (the
# notice's text says where to change the choice, /account#meldingen).
PRERENDERED = {Mail.Kind.ACCOUNT, Mail.Kind.NOTICE}

# Line breaks and other control characters, which no header value may hold (a CR/LF would start a new header).
_HEADER_BREAKS = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]+")


def clean_header(value: str) -> str:
    """One line of plain text: every run of control characters becomes one space."""
    return " ".join(_HEADER_BREAKS.sub(" ", value).split())


@dataclass(frozen=True)
class RenderedMail:
    subject: str
    text: str
    html: str
    unsubscribe_url: str


# A mail's event is a plain id (notifications sits below events): the events app registers how to read one
# when it starts (apps.events.apps), so the mail's text shows the event as it is when the mail goes out.
_event_reader: Callable[[int], object | None] | None = None


def event_reader_register(reader: Callable[[int], object | None]) -> None:
    global _event_reader
    _event_reader = reader


# What a kind of mail needs from the apps above (an offer's deadline, a guest's cancel link, a plonsafspraak or
# a buddy tag named in the mail's `dedupe_key`): registered by them when they start, like the event reader. A
# reader gets the mail and returns extra template context.
_context_readers: dict[str, Callable[[Mail], dict[str, Any]]] = {}


def mail_context_register(kind: str, reader: Callable[[Mail], dict[str, Any]]) -> None:
    _context_readers[kind] = reader


def mail_event(mail: Mail):
    """The event the mail is about, or None."""
    if mail.event_id is None or _event_reader is None:
        return None
    return _event_reader(mail.event_id)


def _unsubscribe(mail: Mail) -> str:
    if mail.kind in WITHOUT_UNSUBSCRIBE or mail.kind in PRERENDERED:
        return ""
    if mail.kind == Mail.Kind.INVITATION:
        return unsubscribe_url(scope=UnsubscribeScope.INVITATIONS, email=mail.to_email)
    if mail.kind == Mail.Kind.DIP_NUDGE:
        return unsubscribe_url(scope=UnsubscribeScope.DIP_NUDGE, user_id=mail.user_id)
    if mail.kind == Mail.Kind.BRRR:
        return unsubscribe_url(scope=UnsubscribeScope.CLUB_NOTICES, user_id=mail.user_id)
    return unsubscribe_url(scope=UnsubscribeScope.EVENT_MAILS, user_id=mail.user_id)


def _context(mail: Mail, event) -> dict:
    context: dict[str, Any] = {"site_url": absolute_url("/"), "account_url": absolute_url(reverse("account"))}
    if mail.kind == Mail.Kind.INVITATION:
        invitation = mail.invitation
        assert invitation is not None  # an invitation's mail goes with it (CASCADE)
        inviter = invitation.invited_by
        context |= {
            "invitation": invitation,
            "invite_url": invitation_url(invitation.code),
            "inviter_name": inviter.display_name if inviter is not None else "",
        }
    elif mail.kind not in GUEST_KINDS:
        assert mail.user is not None  # every other kind here is a member's mail, gone with the member (CASCADE)
        context["member_name"] = mail.user.display_name
    if event is not None:
        context |= {"event": event, "events_url": absolute_url(reverse("events"))}
    if mail.kind in _context_readers:
        context |= _context_readers[mail.kind](mail)
    if mail.kind == Mail.Kind.DIP_NUDGE:
        context["challenge_url"] = absolute_url(reverse("challenge"))
    if mail.kind == Mail.Kind.BRRR:
        context["club_url"] = absolute_url("/club")  # the club app sits above this one: its path, not reverse()
    if mail.kind == Mail.Kind.EMAIL_CONFIRMATION:
        # allauth's signed key of the waiting address, made when the mail goes out (valid for
        # ACCOUNT_EMAIL_CONFIRMATION_EXPIRE_DAYS); nothing secret is stored in the queue.
        key = EmailConfirmationHMAC(mail.email_address).key
        context |= {
            "new_email": mail.to_email,
            "confirm_url": absolute_url(reverse("account_confirm_email", args=[key])),
        }
    if mail.kind == Mail.Kind.EMAIL_CHANGED:
        assert mail.user is not None  # as above: a member's mail
        context |= {"old_email": mail.to_email, "new_email": mail.user.email}
    if mail.kind == Mail.Kind.EXPORT_READY:
        context |= {
            "export_url": absolute_url(reverse("account") + "#export"),
            "export_keep_hours": settings.EXPORT_KEEP_HOURS,
        }
    return context


def render_mail(mail: Mail) -> RenderedMail:
    if mail.kind in PRERENDERED:
        return RenderedMail(subject=mail.subject, text=mail.body_text, html=mail.body_html, unsubscribe_url="")
    event = mail_event(mail)
    context = _context(mail, event)
    link = _unsubscribe(mail)
    context["unsubscribe_url"] = link
    template = f"mail/{mail.kind}"
    subject = SUBJECTS[mail.kind].format(event=event.title if event is not None else "")
    return RenderedMail(
        subject=subject,
        text=render_to_string(f"{template}.txt", context),
        html=render_to_string(f"{template}.html", context | {"subject": subject}),
        unsubscribe_url=link,
    )


def build_message(mail: Mail, *, connection=None) -> EmailMultiAlternatives:
    """Plain text plus HTML, and the one-click unsubscribe of RFC 8058 on every mail that does not answer
    the recipient's own action at that moment. The one place a mail is built: its header values are
    cleaned here, whatever text (an event title) went into them."""
    rendered = render_mail(mail)
    headers = {"Auto-Submitted": "auto-generated"}
    if rendered.unsubscribe_url:
        headers |= {
            "List-Unsubscribe": f"<{clean_header(rendered.unsubscribe_url)}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        }
    message = EmailMultiAlternatives(
        subject=clean_header(rendered.subject),
        body=rendered.text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[clean_header(mail.to_email)],
        connection=connection,
        headers=headers,
    )
    if rendered.html:
        message.attach_alternative(rendered.html, "text/html")
    return message
