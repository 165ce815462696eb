"""Reads for the admin screen. Each costs a fixed number of queries, whatever the club's size."""

import base64
import datetime
from dataclasses import dataclass

from django.core.exceptions import ObjectDoesNotExist
from django.db.models import Count, IntegerField, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from apps.accounts.models import User, UserRole
from apps.challenges.models import Dip, UserChallenge
from apps.challenges.selectors import dutch_date
from apps.invitations.links import invitation_url
from apps.invitations.models import Invitation
from apps.notifications.models import Mail

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
        **invitation_mail_fields(invitation, now=now),
    }


def invitation_mail_fields(invitation: Invitation, *, now=None) -> dict:
    """Whether the invitation mail went out ('Verstuurd', 'Mislukt', ...); null without an address."""
    try:
        mail = invitation.mail
    except ObjectDoesNotExist:
        mail = None
    if mail is not None:
        return {"mailStatus": mail.status, "mailStatusLabel": mail.get_status_display()}
    if invitation.email and invitation.status_at(now or timezone.now()) == Invitation.Status.ACTIVE:
        # The worker writes the mail row when it takes the task: until then the mail waits in the queue.
        return {"mailStatus": Mail.Status.QUEUED.value, "mailStatusLabel": Mail.Status.QUEUED.label}
    return {"mailStatus": None, "mailStatusLabel": None}


def invitation_page(*, request=None, cursor: str | None = None, limit: int = INVITATION_PAGE_SIZE) -> dict:
    rows = list(
        _after(Invitation.objects.select_related("used_by", "mail"), cursor).order_by("-created_at", "-pk")[: limit + 1]
    )
    more = len(rows) > limit
    rows = rows[:limit]
    now = timezone.now()
    return {
        "invitations": [invitation_row(invitation, request=request, now=now) for invitation in rows],
        "next": encode_cursor(rows[-1].created_at, rows[-1].pk) if more else None,
    }


def users_table() -> list[dict]:
    admins = set(UserRole.objects.filter(role=UserRole.Role.ADMIN).values_list("user_id", flat=True))
    # A count per user in a correlated subquery (an index-only scan of the user's dips), not a join of
    # every dip grouped by every user column: about three times faster with 100,000 dips.
    dip_totals = Dip.objects.filter(user=OuterRef("pk")).order_by().values("user").annotate(n=Count("pk")).values("n")
    users = (
        User.objects.annotate(dip_total=Coalesce(Subquery(dip_totals, output_field=IntegerField()), 0))
        .order_by("-created_at", "-pk")
        .values("pk", "email", "full_name", "created_at", "newsletter_consent", "dip_total")
    )
    return [
        {
            "id": user["pk"],
            "email": user["email"],
            "name": user["full_name"],
            "createdAt": user["created_at"].isoformat(),
            "createdAtDisplay": dutch_date(user["created_at"]),
            "newsletter": user["newsletter_consent"],
            "dipCount": user["dip_total"],
            "isAdmin": user["pk"] in admins,
        }
        for user in users
    ]
