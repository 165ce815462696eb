"""Reads for /samen, the dashboard's "Wie gaat er plonsen?" and buddy requests, and /account's setting.
Each is a fixed number of queries whatever the club's size."""

import datetime
import functools
from dataclasses import dataclass

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS
from django.db.models import Count, Exists, F, IntegerField, OuterRef, Prefetch, Subquery, Value
from django.db.models.functions import Coalesce, Now
from django.urls import reverse
from django.utils import timezone

from apps.accounts.models import User
from apps.challenges.models import Dip, DipBuddy
from apps.core.formatting import dutch_date
from apps.core.page_cache import PAGE_TIMEOUT
from apps.core.prepared import PreparedQuery
from apps.events.selectors import display_name

from .models import Meetup, MeetupParticipant, Reply
from .services import MEETUP_SHOWN_AFTER

DASHBOARD_MEETUP_LIMIT = 3
# Enough for a club's busy fortnight; the list is soonest first.
SAMEN_MEETUP_LIMIT = 100
SPOT_SUGGESTIONS = 20
BUDDY_REQUEST_LIMIT = 10


@dataclass(frozen=True)
class MeetupCard:
    meetup: Meetup
    going: list[str]  # names, the proposer first
    joined: bool
    is_proposer: bool
    started: bool

    @property
    def going_count(self) -> int:
        return len(self.going)


_MEETUP_COLUMNS = tuple(field.attname for field in Meetup._meta.concrete_fields)


def _listed_meetups_with_going(limit: int):
    """The afspraken on the list (until an hour after their time, by the database's clock), soonest first, each
    with who goes along in sign-up order: a row per afspraak and person (one with no one: the person's columns
    empty). The LIMIT counts afspraken, in the subquery."""
    listed = (
        Meetup.objects.filter(cancelled_at__isnull=True, starts_at__gte=Now() - MEETUP_SHOWN_AFTER)
        .order_by("starts_at", "pk")
        .values("pk")[:limit]
    )
    return (
        Meetup.objects.filter(pk__in=Subquery(listed))
        .order_by("starts_at", "pk", "participants__created_at", "participants__pk")
        .values_list(*_MEETUP_COLUMNS, "participants__user_id", "participants__user__full_name")
    )


@functools.lru_cache(maxsize=64)
def _prepared_meetups(limit: int) -> PreparedQuery:
    """One query compiled once per length (a LIMIT is part of the SQL)."""
    return PreparedQuery(lambda: _listed_meetups_with_going(limit))


# Where a row of `listed_meetup_rows` holds what (the columns of `Meetup`, in the model's order).
MEETUP_COLUMN = {name: index for index, name in enumerate(_MEETUP_COLUMNS)}


def listed_meetup_rows(limit: int = SAMEN_MEETUP_LIMIT) -> tuple[list[tuple], dict[int, list[tuple[int, str]]]]:
    """The club's afspraken still on the list (until an hour after their time), soonest first, as rows of the
    model's columns, and who goes along on each as (user id, full name) in sign-up order. One query;
    `meetup_card_from_row` makes a row a card."""
    width, id_at = len(_MEETUP_COLUMNS), MEETUP_COLUMN["id"]
    rows: list[tuple] = []
    along: dict[int, list[tuple[int, str]]] = {}
    for row in _prepared_meetups(limit).rows():
        meetup, (user_id, full_name) = row[:width], row[width:]
        if not rows or rows[-1][id_at] != meetup[id_at]:  # ordered by afspraak: its first row
            rows.append(meetup)
        if user_id is not None:
            along.setdefault(meetup[id_at], []).append((user_id, full_name))
    return rows, along


def going_along(row: tuple, along: dict[int, list[tuple[int, str]]]) -> list[tuple[int, str]]:
    """Who goes along on the afspraak of `row`: the proposer first, then in sign-up order."""
    proposer_id = row[MEETUP_COLUMN["proposer_id"]]
    return sorted(along.get(row[MEETUP_COLUMN["id"]], ()), key=lambda person: person[0] != proposer_id)


def meetup_card_from_row(row: tuple, going: list[tuple[int, str]], *, user_id: int, started: bool) -> MeetupCard:
    """The card of a listed afspraak (`listed_meetup_rows`), as the member `user_id` sees it."""
    meetup = Meetup.from_db(DEFAULT_DB_ALIAS, _MEETUP_COLUMNS, row)
    return MeetupCard(
        meetup=meetup,
        going=[display_name(full_name) for _user_id, full_name in going],
        joined=any(person == user_id for person, _name in going),
        is_proposer=meetup.proposer_id == user_id,
        started=started,
    )


def seconds_until_list_changes(cards: list[MeetupCard], *, now: datetime.datetime | None = None) -> float:
    """A cached list is true until the first afspraak starts (its buttons go) or drops off the list."""
    now = now or timezone.now()
    moments = [card.meetup.starts_at + MEETUP_SHOWN_AFTER if card.started else card.meetup.starts_at for card in cards]
    if not moments:
        return PAGE_TIMEOUT
    return max(min((moment - now).total_seconds() for moment in moments), 0)


def _spots(user_id: int):
    """Her dips' spots, newest first, then the afspraken's places, latest first: one query (UNION ALL), the parts
    told apart by `part`. Each part's limit is in a subquery (SQLite allows no LIMIT in a part of a UNION)."""
    own = Dip.objects.filter(user_id=user_id).exclude(spot="").order_by("-created_at")
    club = Meetup.objects.filter(cancelled_at__isnull=True).order_by("-starts_at")
    return (
        Dip.objects.filter(pk__in=Subquery(own.values("pk")[: SPOT_SUGGESTIONS * 3]))
        .annotate(part=Value(0), moment=F("created_at"), text=F("spot"))
        .order_by()  # no model's default order in a part of a UNION
        .values_list("part", "moment", "text")
        .union(
            Meetup.objects.filter(pk__in=Subquery(club.values("pk")[: SPOT_SUGGESTIONS * 3]))
            .annotate(part=Value(1), moment=F("starts_at"), text=F("place"))
            .order_by()
            .values_list("part", "moment", "text"),
            all=True,
        )
        .order_by("part", "-moment")
    )


def spot_suggestions(user: User) -> list[str]:
    """ "Waar": the member's own earlier spots, then the club's earlier afspraak places. One query."""
    return list(dict.fromkeys(text for _part, _moment, text in _spots(user.pk)))[:SPOT_SUGGESTIONS]


@dataclass(frozen=True)
class BuddyRequest:
    tag_id: int
    name: str
    dip_date: datetime.date


def buddy_requests_for(user: User) -> list[BuddyRequest]:
    """ "{naam} plonste met jou op {datum}": the member's open requests, oldest first. One query."""
    tags = (
        DipBuddy.objects.filter(buddy=user, status=DipBuddy.Status.PENDING)
        .select_related("dip__user")
        .order_by("created_at", "pk")[:BUDDY_REQUEST_LIMIT]
    )
    return [BuddyRequest(tag_id=tag.pk, name=tag.dip.user.display_name, dip_date=tag.dip.dip_date) for tag in tags]


# --- the stamp card's part -------------------------------------------------------------------------

# Clubmates offered in "Met wie?": those of today's afspraak and those swum with before come first.
BUDDY_CANDIDATE_LIMIT = 200
# An afspraak counts as "today's" for a dip from this long before its time until this long after.
MEETUP_DIP_WINDOW = datetime.timedelta(hours=12)

WARM_UP_TITLE = "Opwarmen"
WARM_UP_TIPS = [
    "Droog je meteen goed af.",
    "Trek laagjes droge, warme kleding aan, met muts en sokken.",
    "Neem een warme drank.",
    "Beweeg rustig, een stukje wandelen helpt.",
    "Neem niet meteen een hete douche: je lichaam koelt eerst nog wat verder af (afterdrop).",
]
BRIEFING_TITLE = "Veilig het seizoen in"
BRIEFING_POINTS = [
    "Ga nooit alleen het koude water in, en zorg dat iemand op de kant meekijkt.",
    "De eerste minuut hap je naar adem: ga rustig het water in en wacht tot je ademhaling rustig is.",
    "Wees zichtbaar: een felle badmuts en een zwemboei.",
    "Kom eruit voordat je gaat rillen, en warm daarna rustig op.",
    "Kijk het zwemwateradvies na (blauwalg, bacteriën).",
]


def season_start(today: datetime.date) -> datetime.date:
    """The start of the season `today` lies in: the last SAFETY_SEASON_START ("MM-DD") on or before today."""
    month, day = (int(part) for part in settings.SAFETY_SEASON_START.split("-"))
    this_year = datetime.date(today.year, month, day)
    return this_year if this_year <= today else datetime.date(today.year - 1, month, day)


def season_next_start(today: datetime.date) -> datetime.datetime:
    """The moment the next season starts (midnight, local time): the briefing is due again from then on."""
    start = season_start(today)
    following = datetime.date(start.year + 1, start.month, start.day)
    return timezone.make_aware(datetime.datetime.combine(following, datetime.time.min))


def briefing_due(user: User, *, today: datetime.date | None = None) -> bool:
    """The briefing shows on the first stamp card visit of a season: not read since the season started."""
    today = today or timezone.localdate()
    read_on = user.safety_briefing_read_on
    return read_on is None or read_on < season_start(today)


def buddy_candidates(user: User, *, now: datetime.datetime | None = None) -> list[dict]:
    """ "Met wie?": the active clubmates who may be tagged. Those who go along with the member's afspraak of
    about now first, then those swum with before (either one tagged the other), then by name. One query."""
    now = now or timezone.now()
    tagged_by_me = DipBuddy.objects.filter(dip__user=user, buddy=OuterRef("pk")).order_by().values("buddy")
    tagged_me = DipBuddy.objects.filter(buddy=user, dip__user=OuterRef("pk")).order_by().values("buddy")
    my_meetups = MeetupParticipant.objects.filter(
        user=user,
        meetup__cancelled_at__isnull=True,
        meetup__starts_at__range=(now - MEETUP_DIP_WINDOW, now + MEETUP_DIP_WINDOW),
    ).values("meetup")
    rows = (
        User.objects.filter(is_active=True, tagging_allowed=True)
        .exclude(pk=user.pk)
        .annotate(
            with_me=Coalesce(
                Subquery(tagged_by_me.annotate(n=Count("pk")).values("n")[:1], output_field=IntegerField()), Value(0)
            )
            + Coalesce(
                Subquery(tagged_me.annotate(n=Count("pk")).values("n")[:1], output_field=IntegerField()), Value(0)
            ),
            at_meetup=Exists(MeetupParticipant.objects.filter(user=OuterRef("pk"), meetup__in=my_meetups)),
        )
        .order_by("-at_meetup", "-with_me", "full_name", "pk")
        .values("pk", "full_name", "with_me", "at_meetup")[:BUDDY_CANDIDATE_LIMIT]
    )
    return [
        {
            "id": row["pk"],
            "name": row["full_name"].strip() or "Zwemmer",
            "swumWith": row["with_me"] > 0,
            "atMeetup": row["at_meetup"],
        }
        for row in rows
    ]


def meetup_now_for(user: User, *, now: datetime.datetime | None = None) -> tuple[dict | None, datetime.datetime]:
    """The member's afspraak of about now (within MEETUP_DIP_WINDOW of its time) with the clubmates who went
    along and may be tagged, for "Met wie?" to offer them; and until when that answer holds (the afspraak
    leaves the window, or the next one enters it). Two queries."""
    now = now or timezone.now()
    places = (
        MeetupParticipant.objects.filter(
            user=user, meetup__cancelled_at__isnull=True, meetup__starts_at__gte=now - MEETUP_DIP_WINDOW
        )
        .select_related("meetup")
        .order_by("meetup__starts_at", "meetup_id")
    )
    first = places.first()
    if first is None:
        return None, now + datetime.timedelta(seconds=PAGE_TIMEOUT)
    meetup = first.meetup
    if meetup.starts_at - MEETUP_DIP_WINDOW > now:
        return None, meetup.starts_at - MEETUP_DIP_WINDOW
    mates = (
        MeetupParticipant.objects.filter(meetup=meetup, user__is_active=True, user__tagging_allowed=True)
        .exclude(user=user)
        .select_related("user")
        .order_by("created_at", "pk")
    )
    offer = {
        "place": meetup.place,
        "startsAtDisplay": timezone.localtime(meetup.starts_at).strftime("%H:%M"),
        "mates": [{"id": row.user_id, "name": row.user.display_name} for row in mates],
    }
    return offer, meetup.starts_at + MEETUP_DIP_WINDOW


def stamp_card_together(user: User, *, meetup: dict | None = None) -> dict:
    """Samen plonsen's props for the stamp card (its own json_script beside the card's)."""
    today = timezone.localdate()
    return {
        # The afspraak of about now: those who went along are offered in "Met wie?".
        "meetup": meetup,
        # Loaded when "Met wie?" opens (not in the cached page: clubmates come, go and change names).
        "buddiesUrl": reverse("buddy_candidates"),
        "briefing": {
            "due": briefing_due(user, today=today),
            "seasonStartDisplay": dutch_date(season_start(today)),
            "title": BRIEFING_TITLE,
            "points": BRIEFING_POINTS,
            "endpoint": reverse("briefing_read"),
            "safetyUrl": reverse("veilig"),
        },
        "warmUp": {"title": WARM_UP_TITLE, "tips": WARM_UP_TIPS},
    }


def buddy_tagger_name(*, user, tag_id: int) -> str:
    """Who named the member on the dip of this buddy request ("Anna"), for the answer to "Zet op mijn kaart"."""
    tag = DipBuddy.objects.select_related("dip__user").filter(pk=tag_id, buddy=user).first()
    return tag.dip.user.display_name if tag is not None else ""


def meetup_card_for(user: User, meetup_id: int, *, now: datetime.datetime | None = None) -> MeetupCard | None:
    """One afspraak for its own page (/samen/<id>): also a cancelled or past one, which the page says. Two queries."""
    now = now or timezone.now()
    participants = MeetupParticipant.objects.select_related("user").order_by("created_at", "pk")
    meetup = (
        Meetup.objects.select_related("proposer")
        .prefetch_related(Prefetch("participants", queryset=participants))
        .filter(pk=meetup_id)
        .first()
    )
    if meetup is None:
        return None
    rows = sorted(meetup.participants.all(), key=lambda row: row.user_id != meetup.proposer_id)
    return MeetupCard(
        meetup=meetup,
        going=[row.user.display_name for row in rows],
        joined=any(row.user_id == user.pk for row in rows),
        is_proposer=meetup.proposer_id == user.pk,
        started=meetup.starts_at <= now,
    )


def seconds_until_page_changes(card: MeetupCard, *, now: datetime.datetime | None = None) -> float:
    """An afspraak's page is true until it starts (Ik ga mee and Toch niet go); after that, or cancelled, it stays."""
    now = now or timezone.now()
    if card.started or card.meetup.is_cancelled:
        return PAGE_TIMEOUT
    return max((card.meetup.starts_at - now).total_seconds(), 0)


@dataclass(frozen=True)
class ReplyLine:
    pk: int
    name: str
    text: str
    created_at: datetime.datetime
    mine: bool
    removable: bool  # the writer's own, or any for an admin


def replies_for(user: User, *, meetup_id: int | None = None, event_id: int | None = None) -> list[ReplyLine]:
    """The replies under an afspraak or an event, newest last, with the writers' names. One query."""
    rows = Reply.objects.select_related("author").order_by("created_at", "pk")
    rows = rows.filter(meetup_id=meetup_id) if meetup_id is not None else rows.filter(event_id=event_id or 0)
    is_admin = user.is_admin
    return [
        ReplyLine(
            pk=row.pk,
            name=row.author.display_name,
            text=row.text,
            created_at=row.created_at,
            mine=row.author_id == user.pk,
            removable=is_admin or row.author_id == user.pk,
        )
        for row in rows
    ]
