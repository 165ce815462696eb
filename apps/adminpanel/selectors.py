"""Reads for the admin screen. Each costs a fixed number of queries, whatever the club's size."""

import base64
import datetime
import json
from dataclasses import dataclass

from django.db.models import Count, F, Q
from django.db.models.functions import Lower
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from apps.accounts.models import User, UserRole
from apps.challenges.models import Dip, UserChallenge
from apps.challenges.selectors import dutch_date
from apps.invitations.links import invitation_url
from apps.invitations.models import Invitation

ANONYMOUS_SWIMMER = "Anonieme zwemmer"
PHOTO_PAGE_SIZE = 48
INVITATION_PAGE_SIZE = 100


@dataclass(frozen=True)
class AdminStats:
    users: int
    active_challenges: int
    dips: int
    subscribers: int


def admin_stats() -> AdminStats:
    users = User.objects.aggregate(total=Count("pk"), subscribers=Count("pk", filter=Q(newsletter_consent=True)))
    return AdminStats(
        users=users["total"],
        active_challenges=UserChallenge.objects.filter(is_active=True, completed_at__isnull=True).count(),
        dips=Dip.objects.count(),
        subscribers=users["subscribers"],
    )


def admin_stats_payload(stats: AdminStats) -> dict:
    """The numbers of the admin screen for its island, which updates them after every action that changes them."""
    return {
        "users": stats.users,
        "activeChallenges": stats.active_challenges,
        "dips": stats.dips,
        "subscribers": stats.subscribers,
    }


def subscriber_rows():
    return (
        User.objects.filter(newsletter_consent=True, is_active=True)
        .order_by("created_at", "pk")
        .values_list("email", "full_name", "created_at")
    )


# --- keyset pages: newest first, the cursor is the last row's (created_at, id) ----------------------


def encode_cursor(created_at: datetime.datetime, pk: int) -> str:
    return base64.urlsafe_b64encode(f"{created_at.isoformat()}|{pk}".encode()).decode()


def decode_cursor(cursor: str | None) -> tuple[datetime.datetime, int] | None:
    if not cursor:
        return None
    try:
        moment, pk = base64.urlsafe_b64decode(cursor.encode()).decode().split("|")
        parsed = parse_datetime(moment)
        if parsed is None or timezone.is_naive(parsed):  # we only ever hand out aware moments
            raise ValueError(cursor)
        return parsed, int(pk)
    except (ValueError, UnicodeError) as exc:
        raise ValueError("bad cursor") from exc


def _after(queryset, cursor, field="created_at"):
    position = decode_cursor(cursor)
    if position is None:
        return queryset
    moment, pk = position
    return queryset.filter(Q(**{f"{field}__lt": moment}) | Q(**{field: moment, "pk__lt": pk}))


def photo_page(*, cursor: str | None = None, limit: int = PHOTO_PAGE_SIZE) -> dict:
    rows = list(
        _after(Dip.objects.exclude(photo=""), cursor)
        .select_related("user")
        .only("pk", "number", "dip_date", "created_at", "user__full_name", "user__email")
        .order_by("-created_at", "-pk")[: limit + 1]
    )
    more = len(rows) > limit
    rows = rows[:limit]
    return {
        "photos": [
            {
                "dipId": dip.pk,
                "userName": dip.user.full_name.strip() or ANONYMOUS_SWIMMER,
                "dipDateDisplay": dutch_date(dip.dip_date),
                "photoUrl": reverse("dip_photo", args=[dip.pk]),
                "thumbnailUrl": reverse("dip_thumbnail", args=[dip.pk]),
            }
            for dip in rows
        ],
        "next": encode_cursor(rows[-1].created_at, rows[-1].pk) if more else None,
    }


def invitation_row(invitation: Invitation, *, request=None, now=None) -> dict:
    now = now or timezone.now()
    status = invitation.status_at(now)
    return {
        "id": invitation.pk,
        "code": invitation.code,
        "email": invitation.email,
        "status": status.value,
        "statusLabel": status.label,
        "createdAtDisplay": dutch_date(invitation.created_at),
        "expiresAtDisplay": dutch_date(invitation.expires_at),
        "usedBy": (invitation.used_by.full_name or invitation.used_by.email) if invitation.used_by_id else None,
        "usedAtDisplay": dutch_date(invitation.used_at) or None,
        "link": invitation_url(invitation.code, request=request),
    }


def invitation_page(*, request=None, cursor: str | None = None, limit: int = INVITATION_PAGE_SIZE) -> dict:
    rows = list(
        _after(Invitation.objects.select_related("used_by"), cursor).order_by("-created_at", "-pk")[: limit + 1]
    )
    more = len(rows) > limit
    rows = rows[:limit]
    now = timezone.now()
    return {
        "invitations": [invitation_row(invitation, request=request, now=now) for invitation in rows],
        "next": encode_cursor(rows[-1].created_at, rows[-1].pk) if more else None,
    }


# --- the users table: keyset pages in any of its sort orders -------------------------------------------

USERS_PAGE_SIZE = 100
USERS_SEARCH_MAX = 100  # characters: a name or an address, not a text
MESSAGE_USERS_BAD_SORT = "Onbekende sortering. Kies naam, e-mail, lid sinds of plonsen, oplopend of aflopend."
MESSAGE_USERS_BAD_SEARCH = f"Zoekterm is te lang (maximaal {USERS_SEARCH_MAX} tekens) of bevat ongeldige tekens."
MESSAGE_USERS_BAD_CURSOR = "Deze pagina van de gebruikerslijst bestaat niet (meer). Laad de lijst opnieuw."


class UsersQueryError(ValueError):
    """A parameter of the users table the server cannot answer; the message is Dutch, for the admin."""


# The island's sort keys and the column each sorts on; every one has an index on (column, id) in User.Meta.
USER_SORT_COLUMNS = {
    "name": Lower("full_name"),
    "email": F("email"),  # stored in lowercase
    "createdAt": F("created_at"),
    "dipCount": F("dip_count"),  # kept by the dip services: no counting of dips per page
}
USER_SORT_DIRECTIONS = ("asc", "desc")
USER_DEFAULT_SORT = ("createdAt", "desc")


def _users_cursor(*, sort: str, direction: str, search: str, value, pk: int) -> str:
    if isinstance(value, datetime.datetime):
        value = value.isoformat()
    raw = json.dumps({"s": sort, "d": direction, "q": search, "v": value, "id": pk}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode()


def _users_position(cursor: str, *, sort: str, direction: str, search: str):
    """The last row's (sort value, id) of the page before; a cursor of another sort or search is refused."""
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor.encode()).decode())
        if not isinstance(data, dict) or (data.get("s"), data.get("d"), data.get("q")) != (sort, direction, search):
            raise ValueError(cursor)
        value, pk = data["v"], data["id"]
        if type(pk) is not int:
            raise ValueError(cursor)
        if sort == "createdAt":
            value = parse_datetime(value) if isinstance(value, str) else None
            if value is None or timezone.is_naive(value):
                raise ValueError(cursor)
        elif sort == "dipCount":
            if type(value) is not int:
                raise ValueError(cursor)
        elif not isinstance(value, str) or "\x00" in value:
            raise ValueError(cursor)
    except (ValueError, KeyError, TypeError, UnicodeError) as exc:
        raise UsersQueryError(MESSAGE_USERS_BAD_CURSOR) from exc
    return value, pk


def users_page(
    *,
    search: str = "",
    sort: str = USER_DEFAULT_SORT[0],
    direction: str = USER_DEFAULT_SORT[1],
    cursor: str | None = None,
    limit: int = USERS_PAGE_SIZE,
) -> dict:
    """One page of the users table: at most `limit` rows matching `search` (name or e-mail, any case), in
    the sort order, after the cursor's row. Two queries whatever the club's size: the page reads its
    index from the cursor's row on (the redundant `>=` lets PostgreSQL seek there instead of walking)."""
    if sort not in USER_SORT_COLUMNS or direction not in USER_SORT_DIRECTIONS:
        raise UsersQueryError(MESSAGE_USERS_BAD_SORT)
    search = search.strip()
    if len(search) > USERS_SEARCH_MAX or "\x00" in search:  # PostgreSQL text cannot hold a NUL
        raise UsersQueryError(MESSAGE_USERS_BAD_SEARCH)
    users = User.objects.annotate(sort_value=USER_SORT_COLUMNS[sort])
    if search:
        users = users.filter(Q(full_name__icontains=search) | Q(email__icontains=search))
    if cursor:
        value, pk = _users_position(cursor, sort=sort, direction=direction, search=search)
        beyond, reach = ("gt", "gte") if direction == "asc" else ("lt", "lte")
        users = users.filter(
            Q(**{f"sort_value__{beyond}": value}) | Q(sort_value=value, **{f"pk__{beyond}": pk}),
            **{f"sort_value__{reach}": value},
        )
    sign = "" if direction == "asc" else "-"
    rows = list(
        users.order_by(f"{sign}sort_value", f"{sign}pk").values(
            "pk", "email", "full_name", "created_at", "newsletter_consent", "dip_count", "sort_value"
        )[: limit + 1]
    )
    more = len(rows) > limit
    rows = rows[:limit]
    admins = set(
        UserRole.objects.filter(role=UserRole.Role.ADMIN, user_id__in=[row["pk"] for row in rows]).values_list(
            "user_id", flat=True
        )
    )
    last = rows[-1] if rows else None
    return {
        "users": [
            {
                "id": user["pk"],
                "email": user["email"],
                "name": user["full_name"],
                "createdAt": user["created_at"].isoformat(),
                "createdAtDisplay": dutch_date(user["created_at"]),
                "newsletter": user["newsletter_consent"],
                "dipCount": user["dip_count"],
                "isAdmin": user["pk"] in admins,
            }
            for user in rows
        ],
        "next": _users_cursor(sort=sort, direction=direction, search=search, value=last["sort_value"], pk=last["pk"])
        if more
        else None,
    }
