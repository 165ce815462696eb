"""The notices of samen plonsen, one function per notice, through `notice_send` (push or mail, as the member
chose under Meldingen: "Samen plonsen"). Call them inside the transaction of the change: the notice commits
with it.

A notice keeps what it is about in its `dedupe_key` ("meetup-cancelled:<afspraak>:<member>",
"buddy-request:<clubmate>:<member>:<day>"): the mail reads its text from there, and a second call for the same
change tells nothing. Joining is told without a key, so that a busy morning becomes one batched notice.

The kinds of message this app sends are declared at the bottom (apps.notifications.registry)."""

from django.urls import reverse
from django.utils import timezone

from apps.accounts.models import User
from apps.challenges.models import Dip, DipBuddy
from apps.core.formatting import clock_time, dutch_date
from apps.notifications.links import UnsubscribeScope, absolute_url
from apps.notifications.models import Mail, Notice
from apps.notifications.notices import notice_send
from apps.notifications.registry import MessageKind, message_kinds_register

from .models import Meetup, Reply

TOGETHER_JOINED = "together_joined"
TOGETHER_CANCELLED = "together_cancelled"
MEETUP_CANCELLED_MAIL = "meetup_cancelled"
BUDDY_REQUEST = "buddy_request"
REPLY_POSTED = "reply_posted"
# How much of a reply the notice quotes.
REPLY_QUOTE_LENGTH = 80


def _when(meetup: Meetup) -> str:
    local = timezone.localtime(meetup.starts_at)
    return f"{dutch_date(local.date())} om {clock_time(meetup.starts_at)}"


def meetup_joined(*, meetup: Meetup, user: User) -> None:
    """To the proposer: someone goes along ("Ik ga mee"); several within minutes become one notice."""
    notice_send(
        user=meetup.proposer,
        kind=TOGETHER_JOINED,
        title="Er gaat iemand mee plonsen",
        body=f"{user.display_name} gaat mee: {_when(meetup)}, {meetup.place}.",
        url="/samen",
    )


def meetup_cancelled(*, meetup: Meetup, user: User) -> None:
    """To a member who joined: the afspraak does not go ahead."""
    notice_send(
        user=user,
        kind=TOGETHER_CANCELLED,
        title="Plonsafspraak gaat niet door",
        body=f"{meetup.proposer.display_name} heeft de afspraak van {_when(meetup)} ({meetup.place}) geannuleerd.",
        url="/samen",
        dedupe_key=f"meetup-cancelled:{meetup.pk}:{user.pk}",
    )


def reply_posted(*, reply: Reply, where: str, url: str, users) -> None:
    """To the proposer of the afspraak, or the organisers and admins of the event: a clubmate replied. Without a
    key, so several replies within minutes become one notice (the kind's batch)."""
    text = " ".join(reply.text.split())
    if len(text) > REPLY_QUOTE_LENGTH:
        text = text[: REPLY_QUOTE_LENGTH - 1].rstrip() + "…"
    for user in users:
        notice_send(
            user=user,
            kind=REPLY_POSTED,
            title=f"Nieuwe reactie bij {where}",
            body=f"{reply.author.display_name}: {text}",
            url=url,
        )


def buddy_request_key(*, tagger_id: int, buddy_id: int, day) -> str:
    """One request notice per tagger, per member, per day (like Brrr!): tagging the same clubmate on 25 dips tells
    them once; the dashboard lists every tag."""
    return f"buddy-request:{tagger_id}:{buddy_id}:{day.isoformat()}"


def buddy_request(*, tag: DipBuddy) -> None:
    """To the member named on a clubmate's dip: "{naam} plonste met jou op {datum}". Later tags by the same
    clubmate that day are on the dashboard, not told again."""
    dip = tag.dip
    name = dip.user.display_name
    notice_send(
        user=tag.buddy,
        kind=BUDDY_REQUEST,
        title=f"{name} plonste met jou",
        body=(
            f"{name} plonste met jou op {dutch_date(dip.dip_date)}. "
            "Zet de plons op je kaart, of zeg dat het niet klopt."
        ),
        url="/dashboard#buddies",
        dedupe_key=buddy_request_key(tagger_id=dip.user_id, buddy_id=tag.buddy_id, day=timezone.localdate()),
    )


def buddy_request_withdraw(*, tag: DipBuddy) -> None:
    """A request whose dip is gone (undone as a mis-tap, deleted with an account) before its notice went out: it
    no longer stands, unless the same clubmate's other tags still wait for an answer. A mail being sent right now
    goes with it (no retry brings it back); a mail or push already sent stays on record. Called as the tag goes,
    while its dip is still there."""
    tagger_id = Dip.objects.filter(pk=tag.dip_id).values_list("user_id", flat=True).first()
    if tagger_id is None:
        return
    waiting = DipBuddy.objects.filter(
        dip__user_id=tagger_id, buddy_id=tag.buddy_id, status=DipBuddy.Status.PENDING
    ).exclude(pk=tag.pk)
    if waiting.exists():
        return
    prefix = f"buddy-request:{tagger_id}:{tag.buddy_id}:"
    Mail.objects.filter(
        kind=BUDDY_REQUEST,
        dedupe_key__startswith=prefix,
        status__in=[Mail.Status.QUEUED, Mail.Status.SENDING, Mail.Status.FAILED],
    ).delete()
    Notice.objects.filter(
        dedupe_key__startswith=prefix, status__in=[Notice.Status.QUEUED, Notice.Status.RETRY]
    ).delete()


def _key_id(mail: Mail, position: int) -> int:
    """The id at `position` of the mail's key; 0 (no row) when the key holds none."""
    parts = (mail.dedupe_key or "").split(":")
    return int(parts[position]) if len(parts) > position and parts[position].isdigit() else 0


def _meetup_context(mail: Mail) -> dict:
    meetup = Meetup.objects.select_related("proposer").filter(pk=_key_id(mail, 1)).first()
    return {"meetup": meetup, "samen_url": absolute_url(reverse("together"))}


def _buddy_context(mail: Mail) -> dict:
    """The clubmate in the key ("buddy-request:<tagger>:<buddy>:<day>") and their latest tag still waiting."""
    tags = DipBuddy.objects.select_related("dip__user").filter(buddy_id=mail.user_id)
    if len((mail.dedupe_key or "").split(":")) == 2:
        tags = tags.filter(pk=_key_id(mail, 1))  # queued before the daily key: "buddy-request:<tag>"
    else:
        tags = tags.filter(dip__user_id=_key_id(mail, 1))
    tag = tags.order_by("-dip__dip_date", "-pk").first()
    return {
        "buddy_name": tag.dip.user.display_name if tag else "Een clubgenoot",
        "buddy_date": dutch_date(tag.dip.dip_date) if tag else "",
        "dashboard_url": absolute_url(reverse("dashboard") + "#buddies"),
    }


# Samen plonsen is club life beside the events: the old "mail over mijn events" choice (and its unsubscribe link)
# governs it too.
_GROUP, _EVENT_MAILS = "Samen plonsen", UnsubscribeScope.EVENT_MAILS

message_kinds_register(
    MessageKind(
        TOGETHER_JOINED,
        label="Iemand plonst mee met je afspraak",
        group=_GROUP,
        position=30,
        batch_seconds=300,
        unsubscribe=_EVENT_MAILS,
    ),
    MessageKind(
        TOGETHER_CANCELLED,
        mail_name=MEETUP_CANCELLED_MAIL,
        subject="Een plonsafspraak gaat niet door",
        templates="together/mail/meetup_cancelled",
        context=_meetup_context,
        label="Een afspraak gaat niet door",
        group=_GROUP,
        position=31,
        unsubscribe=_EVENT_MAILS,
    ),
    MessageKind(
        BUDDY_REQUEST,
        subject="Een clubgenoot plonste met jou",
        templates="together/mail/buddy_request",
        context=_buddy_context,
        label="Een buddyverzoek",
        group=_GROUP,
        position=32,
        unsubscribe=_EVENT_MAILS,
    ),
    MessageKind(
        REPLY_POSTED,
        label="Een reactie op je afspraak of event",
        group=_GROUP,
        position=33,
        batch_seconds=300,
        unsubscribe=_EVENT_MAILS,
    ),
)
