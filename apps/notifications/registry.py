"""The registry of what members (and invited addresses, and event guests) are told.

A kind of message is declared once, in the `notices.py` of the app that sends it, with `message_kinds_register`:
its name, its mail's subject and templates, what its templates need (`context`), whether a member chooses how
it reaches them (a `label` under Meldingen on /account), whether quiet hours hold, whether its mail carries a
one-click unsubscribe, and its batching. This app keeps the registry and delivery only; it declares just the
kinds of the apps below it (invitations, accounts) and its own club messages (apps/notifications/kinds.py).
Every app's `notices.py` is imported when the apps are ready (NotificationsConfig.ready), so the registry is
whole before the first request or task.

`Mail.kind`, `Notice.kind` and `NoticePreference.kind` are plain text checked against this registry.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError

from .links import UnsubscribeScope

if TYPE_CHECKING:
    from .models import Mail

# Who a mail goes to: a member (the mail names them), an event guest (no account), an address (an invitation).
MEMBER = "member"
GUEST = "guest"
ADDRESS = "address"

# The channels a member chooses between (NoticePreference.channel; the Channel choices of models.py).
PUSH, MAIL, OFF = "push", "mail", "off"

# The old mail choices (MailPreference's fields) behind each unsubscribe scope: off there is Uit for the kind.
SCOPE_FLAGS: dict[str, str] = {
    UnsubscribeScope.EVENT_MAILS: "event_mails",
    UnsubscribeScope.DIP_NUDGE: "dip_nudge",
    UnsubscribeScope.CLUB_NOTICES: "club_notices",
}

# The text of a notice sent by mail, for kinds without a mail of their own.
NOTICE_TEMPLATES = "mail/notice"


@dataclass(frozen=True)
class MessageKind:
    """One kind of message. With a `label` it is a notice: the member chooses Push, Mail or Uit for it on /account
    and `notice_send` routes it; without one it is a mail only (an answer, a guest's mail, an invitation)."""

    name: str
    # The mail's subject; "{event_title}" is the title of the mail's event.
    subject: str = ""
    # "<folder>/<name>" of the mail's .txt and .html; "" = the notice's own title and text (mail/notice), rendered
    # when it is queued.
    templates: str = ""
    # What the templates need beyond the member's name and the links every mail has, read when the mail goes out
    # (the row a mail is about may have changed since it was queued).
    context: Callable[["Mail"], dict[str, Any]] | None = None
    recipient: str = MEMBER
    # The kind's mail name when it differs from `name` (the stored mails keep their older names).
    mail_name: str = ""
    # The member's choice, under Meldingen on /account: its text and heading there.
    label: str = ""
    group: str = ""
    position: int = 0  # where it stands under Meldingen (lower first; a group stands where its first kind does)
    default: str = PUSH  # push when a device is subscribed, else mail (when it has a mail fallback)
    mail_fallback: bool = True
    quiet_hours: bool = True  # held during quiet hours (settings.QUIET_HOURS_START..END)
    batch_seconds: int = 0  # > 0: notices of this kind to one member within this window become one
    # The scope the mail's one-click unsubscribe turns off (apps.notifications.links.UnsubscribeScope); "" for an
    # answer to what the recipient just did (RFC 8058 is for mail one can stop).
    unsubscribe: str = ""
    # Written before it is queued (allauth's mails): the text is on the row, nothing to render.
    prerendered: bool = False
    # What the member's export calls a mail of a kind without a label ("Uitnodiging").
    display: str = ""

    @property
    def chosen(self) -> bool:
        """A member chooses how this kind reaches them (it is listed under Meldingen)."""
        return bool(self.label)

    @property
    def verbose(self) -> str:
        """Its Dutch name: the label on /account, else its `display`."""
        return self.label or self.display or self.name

    @property
    def mail_kind(self) -> str:
        """The `Mail.kind` of this kind's mail."""
        return self.mail_name or self.name

    @property
    def own_mail(self) -> bool:
        """Rendered from its own templates when it goes out (else the notice's text, rendered when queued)."""
        return bool(self.templates)

    @property
    def mail_flag(self) -> str:
        """The old mail choice that also governs this kind: off there means Uit here."""
        return SCOPE_FLAGS.get(self.unsubscribe, "")


# Every kind by name, and by the name its mails carry: filled by the apps' notices.py when the apps are ready.
KINDS: dict[str, MessageKind] = {}
MAIL_KINDS: dict[str, MessageKind] = {}


class MessageKindUnknown(ValueError):
    pass


def message_kinds_register(*kinds: MessageKind) -> None:
    """Declare kinds of message (from an app's notices.py). A name is declared once, in one app."""
    for kind in kinds:
        for table, key in ((KINDS, kind.name), (MAIL_KINDS, kind.mail_kind)):
            if table.get(key, kind) != kind:
                raise ValueError(f"message kind {key!r} is declared twice")
            table[key] = kind


def kind_of(name: str) -> MessageKind:
    try:
        return KINDS[name]
    except KeyError as exc:
        raise MessageKindUnknown(name) from exc


def mail_kind_of(mail_kind: str) -> MessageKind:
    try:
        return MAIL_KINDS[mail_kind]
    except KeyError as exc:
        raise MessageKindUnknown(mail_kind) from exc


def chosen_kinds() -> list[MessageKind]:
    """The kinds a member chooses for, in their order on /account: each group together."""
    kinds = sorted((kind for kind in KINDS.values() if kind.chosen), key=lambda kind: kind.position)
    group_rank: dict[str, int] = {}
    for kind in kinds:
        group_rank.setdefault(kind.group, len(group_rank))
    return sorted(kinds, key=lambda kind: group_rank[kind.group])


def flag_kinds(flag: str) -> list[str]:
    """The kinds an old mail choice (a MailPreference field) governs."""
    return [kind.name for kind in KINDS.values() if kind.chosen and kind.mail_flag == flag]


def validate_kind(value: str) -> None:
    """The model fields' validator: a kind the registry knows."""
    if value not in KINDS and value not in MAIL_KINDS:
        raise ValidationError("Onbekende soort bericht: %(value)s", params={"value": value})
