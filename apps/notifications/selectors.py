"""Reads of the notices: who a club message reaches and how, a member's devices and choices, the latest club
messages. Each is a fixed number of queries, whatever the number of members."""

from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef

from .kinds import CLUB_MESSAGE
from .models import Channel, ClubMessage, NoticePreference, PushSubscription
from .notices import channels_for
from .push_transport import push_configured
from .registry import chosen_kinds

CLUB_MESSAGES_SHOWN = 3


@dataclass(frozen=True)
class Audience:
    push_ids: list[int]
    mail_ids: list[int]

    @property
    def push(self) -> int:
        return len(self.push_ids)

    @property
    def mail(self) -> int:
        return len(self.mail_ids)


def club_message_audience() -> Audience:
    """Active members by how a club message reaches them: push (their choice is Push and a device is
    subscribed) or mail (Mail chosen, or Push without a device: club messages have a mail fallback). Two queries."""
    choice = NoticePreference.objects.filter(user=OuterRef("pk"), kind=CLUB_MESSAGE)
    rows = (
        get_user_model()
        .objects.filter(is_active=True)
        .annotate(
            off=Exists(choice.filter(channel=Channel.OFF)),
            by_mail=Exists(choice.filter(channel=Channel.MAIL)),
            device=Exists(PushSubscription.objects.filter(user=OuterRef("pk"))),
        )
        .order_by("pk")
        .values_list("pk", "off", "by_mail", "device")
    )
    push_ids: list[int] = []
    mail_ids: list[int] = []
    pushing = push_configured()
    for user_id, off, by_mail, device in rows:
        if off:
            continue
        (push_ids if device and pushing and not by_mail else mail_ids).append(user_id)
    return Audience(push_ids=push_ids, mail_ids=mail_ids)


@dataclass(frozen=True)
class KindChoice:
    name: str
    label: str
    group: str
    channel: str
    mail_fallback: bool


@dataclass(frozen=True)
class NoticeSettings:
    configured: bool
    devices: list[PushSubscription]
    kinds: list[KindChoice]
    channels: list[tuple[str, str]]
    vapid_public_key: str


def notice_settings_for(user) -> NoticeSettings:
    """The /account section Meldingen: this member's devices and their choice per kind. Three queries."""
    chosen = channels_for(user)
    return NoticeSettings(
        configured=push_configured(),
        devices=list(PushSubscription.objects.filter(user=user).order_by("-last_seen_at", "-pk")),
        kinds=[
            KindChoice(kind.name, kind.label, kind.group, chosen[kind.name], kind.mail_fallback)
            for kind in chosen_kinds()
        ],
        channels=list(Channel.choices),
        vapid_public_key=settings.VAPID_PUBLIC_KEY,
    )


def latest_club_messages(limit: int = CLUB_MESSAGES_SHOWN) -> list[ClubMessage]:
    return list(ClubMessage.objects.order_by("-created_at", "-pk")[:limit])
