"""Reads for the admin screen. Each costs a fixed number of queries, whatever the club's size."""

import datetime
from dataclasses import dataclass

from django.core.exceptions import ObjectDoesNotExist
from django.db.models import Count, Exists, F, IntegerField, Max, OuterRef, Q, Subquery, Sum
from django.db.models.functions import Coalesce, Lower
from django.urls import reverse
from django.utils import timezone

from apps.accounts.models import User, UserRole
from apps.challenges.models import Badge, Dip, DipWeekTally, UserBadge, UserChallenge
from apps.core.formatting import dutch_date
from apps.invitations.links import invitation_url
from apps.invitations.models import EMAIL_SORT_KEY, Invitation
from apps.moving_in.selectors import not_signed_in_since_the_move
from apps.notifications.models import Mail
from apps.shipping.selectors import PhysicalFilter, address_lines, physical_counts

from .keyset import FIRST_PAGE, KeysetList, ListQuery, ListQueryError, SortColumn


@dataclass(frozen=True)
class AdminStats:
    users: int
    active_challenges: int
    dips: int
    subscribers: int
    dips_this_week: int
    new_members_this_month: int
    # Members moved in from the original app (apps.moving_in) who have not signed in here yet.
    moved_not_signed_in: int = 0


def admin_stats(*, today: datetime.date | None = None) -> AdminStats:
    today = today or timezone.localdate()
    month_began = timezone.make_aware(datetime.datetime.combine(today.replace(day=1), datetime.time.min))
    users = User.objects.aggregate(
        total=Count("pk"),
        subscribers=Count("pk", filter=Q(newsletter_consent=True)),
        new_this_month=Count("pk", filter=Q(created_at__gte=month_began)),
        moved_not_signed_in=Count("pk", filter=Q(Exists(not_signed_in_since_the_move(OuterRef("pk"))))),
    )
    week_began = today - datetime.timedelta(days=today.weekday())
    # From the weekly tallies the database keeps (models/tallies.py): a row per week, not a count of every dip.
    dips = DipWeekTally.objects.aggregate(
        total=Coalesce(Sum("dips"), 0), this_week=Coalesce(Sum("dips", filter=Q(week__gte=week_began)), 0)
    )
    return AdminStats(
        users=users["total"],
        active_challenges=UserChallenge.objects.filter(is_active=True, completed_at__isnull=True).count(),
        dips=dips["total"],
        subscribers=users["subscribers"],
        dips_this_week=dips["this_week"],
        new_members_this_month=users["new_this_month"],
        moved_not_signed_in=users["moved_not_signed_in"],
    )


def admin_stats_payload(stats: AdminStats) -> dict:
    """The numbers of the admin screen for its island, which updates them after every action that changes them."""
    return {
        "users": stats.users,
        "activeChallenges": stats.active_challenges,
        "dips": stats.dips,
        "subscribers": stats.subscribers,
        "dipsThisWeek": stats.dips_this_week,
        "newMembersThisMonth": stats.new_members_this_month,
    }


def subscriber_rows():
    return (
        User.objects.filter(newsletter_consent=True, is_active=True)
        .order_by("created_at", "pk")
        .values_list("email", "full_name", "created_at")
    )


# --- the admin lists: keyset pages (keyset.py) in the sort orders and with the search of each ---------

ANONYMOUS_SWIMMER = "Anonieme zwemmer"
MESSAGE_PHOTOS_BAD_SORT = "Onbekende volgorde. Kies nieuwste of oudste eerst."
MESSAGE_PHOTOS_BAD_CURSOR = "Deze pagina van de foto's bestaat niet (meer). Laad de foto's opnieuw."

# The collage: the photos in the order they were registered, searched by the member's name or e-mail.
PHOTOS = KeysetList(
    sorts={"createdAt": SortColumn.moment("created_at")},  # index: dip_photo_sort_idx
    default_sort=("createdAt", "desc"),
    page_size=48,
    message_bad_sort=MESSAGE_PHOTOS_BAD_SORT,
    message_bad_cursor=MESSAGE_PHOTOS_BAD_CURSOR,
    search_fields=("user__full_name", "user__email"),
)
PHOTO_PAGE_SIZE = PHOTOS.page_size


def photo_page(*, query: ListQuery = FIRST_PAGE) -> dict:
    """A page of the photo collage: newest first unless asked otherwise, one query at any club size."""
    page = PHOTOS.page(
        Dip.objects.exclude(photo="")
        .select_related("user")
        .only("pk", "number", "dip_date", "created_at", "user__full_name", "user__email"),
        query,
    )
    return {
        "photos": [
            {
                "dipId": dip.pk,
                "userName": dip.user.full_name.strip() or ANONYMOUS_SWIMMER,
                "dipDateDisplay": dutch_date(dip.dip_date),
                "photoUrl": reverse("dip_photo", args=[dip.pk]),
                "thumbnailUrl": reverse("dip_thumbnail", args=[dip.pk]),
            }
            for dip in page.rows
        ],
        "next": page.next,
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
        "usedBy": (
            (invitation.used_by.full_name or invitation.used_by.email) if invitation.used_by is not None else None
        ),
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


MESSAGE_INVITATIONS_BAD_SORT = "Onbekende sortering. Kies code, e-mail, aangemaakt of verloopt, oplopend of aflopend."
MESSAGE_INVITATIONS_BAD_CURSOR = "Deze pagina van de uitnodigingen bestaat niet (meer). Laad de lijst opnieuw."

# The invitations table's sort keys; every one has an index on (column, id) in Invitation.Meta. The status
# is no sort: it moves with the clock; 'Verloopt' orders by it.
INVITATIONS = KeysetList(
    sorts={
        "code": SortColumn(F("code"), str),
        "email": SortColumn(EMAIL_SORT_KEY, str),  # a generic code (no address) sorts as ""
        "createdAt": SortColumn.moment("created_at"),
        "expiresAt": SortColumn.moment("expires_at"),
    },
    default_sort=("createdAt", "desc"),
    # 50, not 100: a row can carry two addresses of 254 characters (its own and its user's), and the answer
    # must stay under 60 KB: the longest rows there can be weigh 72 KB per 100.
    page_size=50,
    message_bad_sort=MESSAGE_INVITATIONS_BAD_SORT,
    message_bad_cursor=MESSAGE_INVITATIONS_BAD_CURSOR,
    search_fields=("email", "code"),
)
INVITATION_PAGE_SIZE = INVITATIONS.page_size


def invitation_page(*, request=None, query: ListQuery = FIRST_PAGE) -> dict:
    """A page of the invitations table, searched by e-mail or code (any case): one query at any size."""
    page = INVITATIONS.page(Invitation.objects.select_related("used_by", "mail"), query)
    now = timezone.now()
    return {
        "invitations": [invitation_row(invitation, request=request, now=now) for invitation in page.rows],
        "next": page.next,
    }


MESSAGE_USERS_BAD_SORT = "Onbekende sortering. Kies naam, e-mail, lid sinds of plonsen, oplopend of aflopend."
MESSAGE_USERS_BAD_CURSOR = "Deze pagina van de gebruikerslijst bestaat niet (meer). Laad de lijst opnieuw."

# The users table's sort keys; every one has an index on (column, id) in User.Meta.
USERS = KeysetList(
    sorts={
        "name": SortColumn(Lower("full_name"), str),
        "email": SortColumn(F("email"), str),  # stored in lowercase
        "createdAt": SortColumn.moment("created_at"),
        "dipCount": SortColumn(F("dip_count"), int),  # kept by the dip services: no counting of dips per page
    },
    default_sort=("createdAt", "desc"),
    page_size=100,
    message_bad_sort=MESSAGE_USERS_BAD_SORT,
    message_bad_cursor=MESSAGE_USERS_BAD_CURSOR,
    search_fields=("full_name", "email"),
)
USERS_PAGE_SIZE = USERS.page_size


def _user_values():
    roles = UserRole.objects.filter(user=OuterRef("pk"))
    return User.objects.values("pk", "email", "full_name", "created_at", "newsletter_consent", "dip_count").annotate(
        is_admin_role=Exists(roles.filter(role=UserRole.Role.ADMIN)),
        is_organiser_role=Exists(roles.filter(role=UserRole.Role.ORGANISER)),
    )


def _user_payload(user: dict) -> dict:
    return {
        "id": user["pk"],
        "email": user["email"],
        "name": user["full_name"],
        "createdAt": user["created_at"].isoformat(),
        "createdAtDisplay": dutch_date(user["created_at"]),
        "newsletter": user["newsletter_consent"],
        "dipCount": user["dip_count"],
        "isAdmin": user["is_admin_role"],
        "isOrganiser": user["is_organiser_role"],
    }


def user_row(user_id: int) -> dict:
    """One row of the users table, as the list gives it (after a change to it)."""
    return _user_payload(_user_values().get(pk=user_id))


def users_page(*, query: ListQuery = FIRST_PAGE) -> dict:
    """A page of the users table, searched by name or e-mail (any case). One query whatever the club's
    size, of plain values: the roles are a lookup per row in that query (not a second query with a
    hundred ids), and no model is built per row (that was most of this list's cost)."""
    page = USERS.page(_user_values(), query)
    return {
        "users": [_user_payload(user) for user in page.rows],
        "next": page.next,
    }


def _per_user(model, aggregate):
    """One number per user in a correlated subquery (an index scan of that user's rows), not a join of
    every row grouped by every user column: about three times faster with 100,000 dips."""
    return Subquery(
        model.objects.filter(user=OuterRef("pk")).order_by().values("user").annotate(n=aggregate).values("n")
    )


def user_export_rows():
    """The users table for Excel: e-mail, name, member since, dips, badges, last dip. One query."""
    return (
        User.objects.annotate(
            badge_total=Coalesce(_per_user(UserBadge, Count("pk")), 0, output_field=IntegerField()),
            last_dip=_per_user(Dip, Max("dip_date")),
        )
        .order_by("-created_at", "-pk")
        .values_list("email", "full_name", "created_at", "dip_count", "badge_total", "last_dip")
    )


# --- physical badges ------------------------------------------------------------------------------

# The earned badges, newest first; the filter (status, badge) is the page's, not the cursor's.
PHYSICAL = KeysetList(
    sorts={"earnedAt": SortColumn.moment("earned_at")},
    default_sort=("earnedAt", "desc"),
    page_size=50,
    message_bad_sort="",  # one fixed order: nothing to ask
    message_bad_cursor="",  # a spoilt cursor starts the list at the top
)
PHYSICAL_PAGE_SIZE = PHYSICAL.page_size


@dataclass
class PhysicalRow:
    award: UserBadge
    address: list[str]


def physical_badges(flt: PhysicalFilter) -> dict:
    """A page of earned badges with their physical status, the counts per status and the badge choices."""
    awards = flt.queryset().select_related("user__postal_address", "badge", "user_challenge__challenge")
    try:
        page = PHYSICAL.page(awards, ListQuery(cursor=flt.cursor))
    except ListQueryError:  # a spoilt cursor: start at the top
        page = PHYSICAL.page(awards)
    return {
        "rows": [PhysicalRow(award=award, address=address_lines(award.user)) for award in page.rows],
        "next": page.next,
        "counts": physical_counts(),
        "badges": list(Badge.objects.select_related("challenge").order_by("challenge__name", "milestone_dips")),
    }
