"""The text of a mail: subject, plain text and HTML, rendered from the declaration of its kind
(apps.notifications.registry) and the rows the `Mail` points at, when it goes out."""

import re
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse

from .links import UnsubscribeScope, absolute_url, unsubscribe_url
from .models import Mail
from .registry import MEMBER, NOTICE_TEMPLATES, MessageKind, mail_kind_of

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


def unsubscribe_link(kind: MessageKind, *, user_id: int | None, to_email: str) -> str:
    """The one-click unsubscribe of a mail of this kind, or "" for an answer to the recipient's own action."""
    if not kind.unsubscribe:
        return ""
    if kind.unsubscribe == UnsubscribeScope.INVITATIONS:
        return unsubscribe_url(scope=kind.unsubscribe, email=to_email)
    if user_id is None:
        return ""
    return unsubscribe_url(scope=kind.unsubscribe, user_id=user_id)


def mail_context(mail: Mail, kind: MessageKind) -> dict[str, Any]:
    """What every mail's templates get, and what the kind's own context adds."""
    context: dict[str, Any] = {"site_url": absolute_url("/"), "account_url": absolute_url(reverse("account"))}
    if kind.recipient == MEMBER:
        assert mail.user is not None  # a member's mail goes with the member (CASCADE)
        context["member_name"] = mail.user.display_name
    if kind.context is not None:
        context |= kind.context(mail)
    return context


def render_mail(mail: Mail) -> RenderedMail:
    kind = mail_kind_of(mail.kind)
    link = unsubscribe_link(kind, user_id=mail.user_id, to_email=mail.to_email)
    if kind.prerendered:
        # Rendered when it was queued (allauth's mails): the row holds it.
        return RenderedMail(subject=mail.subject, text=mail.body_text, html=mail.body_html, unsubscribe_url=link)
    context = mail_context(mail, kind)
    context["unsubscribe_url"] = link
    if kind.own_mail:
        subject, templates = kind.subject.format(event_title=context.get("event_title", "")), kind.templates
    else:
        # A notice told by mail as its own title and text, kept on the row until it is sent.
        subject, templates = mail.subject, NOTICE_TEMPLATES
        context |= {
            "title": mail.subject,
            "body": mail.body_text,
            "link": absolute_url(mail.link or "/dashboard"),
            "account_url": absolute_url("/account#meldingen"),
        }
    return RenderedMail(
        subject=subject,
        text=render_to_string(f"{templates}.txt", context),
        html=render_to_string(f"{templates}.html", context | {"subject": subject}),
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
