"""The admin invitations table and photo collage: pages searched and sorted by the server, like the users table."""

import datetime

import pytest
from django.utils import timezone

from apps.adminpanel.keyset import MESSAGE_BAD_SEARCH
from apps.adminpanel.selectors import (
    INVITATION_PAGE_SIZE,
    MESSAGE_INVITATIONS_BAD_CURSOR,
    MESSAGE_INVITATIONS_BAD_SORT,
    MESSAGE_PHOTOS_BAD_CURSOR,
    MESSAGE_PHOTOS_BAD_SORT,
    PHOTO_PAGE_SIZE,
)
from apps.challenges.models import Challenge, Dip, UserChallenge
from apps.invitations.models import Invitation
from tests.concurrency import requires_postgresql

from .lists import MAX_ANSWER_BYTES, cursor_of, every_page, members, plans_of_every_query, search_plan

pytestmark = pytest.mark.django_db

INVITATIONS = "/admin/api/uitnodigingen"
PHOTOS = "/admin/api/fotos"


def invitations(count: int, **fields) -> list[Invitation]:
    """`count` invitations, each a minute older than the one before, with the given fields (callables get n)."""
    now = timezone.now()
    made = []
    for n in range(count):
        values = {key: value(n) if callable(value) else value for key, value in fields.items()}
        created_at = values.pop("created_at", now - datetime.timedelta(minutes=n))
        made.append(
            Invitation(
                code=f"C{n:07d}",
                created_at=created_at,
                expires_at=values.pop("expires_at", created_at + datetime.timedelta(days=30)),
                **values,
            )
        )
    return Invitation.objects.bulk_create(made)


def photos(count: int, **member_fields) -> list[Dip]:
    """`count` members with one photo dip each, registered a minute apart (the first newest)."""
    people = members(count, **member_fields)
    challenge = Challenge.objects.get(target_dips=5)
    cards = UserChallenge.objects.bulk_create(
        [UserChallenge(user=person, challenge=challenge, challenge_type="normal") for person in people]
    )
    return Dip.objects.bulk_create(
        [
            Dip(
                user=card.user,
                user_challenge=card,
                number=1,
                dip_date=card.user.created_at.date(),
                created_at=card.user.created_at,
                photo=f"{card.user_id}/a.jpg",
                thumbnail=f"{card.user_id}/a-klein.jpg",
            )
            for card in cards
        ]
    )


# --- invitations ---------------------------------------------------------------------------------------


def test_the_invitations_come_newest_first_in_pages_of_fifty(admin_client):
    invitations(120)
    pages = every_page(admin_client, INVITATIONS, "invitations")
    assert [len(page) for page in pages] == [50, 50, 20] and INVITATION_PAGE_SIZE == 50
    codes = [row["code"] for page in pages for row in page]
    assert codes == [f"C{n:07d}" for n in range(120)]


@pytest.mark.parametrize(
    ("sort", "direction", "key", "reverse"),
    [
        ("code", "asc", lambda row: row["code"], False),
        ("code", "desc", lambda row: row["code"], True),
        ("email", "asc", lambda row: (row["email"] or "", row["id"]), False),
        ("email", "desc", lambda row: (row["email"] or "", row["id"]), True),
        ("createdAt", "asc", lambda row: (row["created_at"], row["id"]), False),
        ("expiresAt", "asc", lambda row: (row["expires_at"], row["id"]), False),
        ("expiresAt", "desc", lambda row: (row["expires_at"], row["id"]), True),
    ],
)
def test_every_invitation_order_pages_through_all_of_them_in_that_order(admin_client, sort, direction, key, reverse):
    # Many ties: seven addresses and generic codes (no address) among 230, four moments, four expiry days.
    moment = timezone.now()
    invitations(
        230,
        email=lambda n: None if n % 8 == 0 else f"lid{n % 7}@example.nl",
        created_at=lambda n: moment - datetime.timedelta(hours=n % 4),
        expires_at=lambda n: moment + datetime.timedelta(days=n % 4 + 1),
    )
    facts = {row.pk: {"created_at": row.created_at, "expires_at": row.expires_at} for row in Invitation.objects.all()}
    rows = [
        row for page in every_page(admin_client, INVITATIONS, "invitations", sort=sort, dir=direction) for row in page
    ]
    rows = [{**row, **facts[row["id"]]} for row in rows]
    assert len(rows) == 230 == len({row["id"] for row in rows})
    assert rows == sorted(rows, key=key, reverse=reverse)


def test_the_invitation_search_finds_an_address_or_a_code_in_any_case(admin_client):
    invitations(150, email=lambda n: "jan@example.nl" if n % 3 == 0 else (None if n % 3 == 1 else f"piet{n}@x.nl"))
    found = [row for page in every_page(admin_client, INVITATIONS, "invitations", q="  JAN@ ") for row in page]
    assert len(found) == 50 and {row["email"] for row in found} == {"jan@example.nl"}
    by_code = admin_client.get(INVITATIONS, {"q": "c000012"}).json()["invitations"]
    assert [row["code"] for row in by_code] == [f"C000012{n}" for n in range(10)]
    assert admin_client.get(INVITATIONS, {"q": "niemand"}).json() == {"invitations": [], "next": None}


def test_a_search_pages_within_its_matches_in_the_asked_order(admin_client):
    invitations(260, email=lambda n: f"{'zwem' if n % 2 else 'loop'}{n:03d}@example.nl")
    pages = every_page(admin_client, INVITATIONS, "invitations", q="zwem", sort="email", dir="desc")
    emails = [row["email"] for page in pages for row in page]
    assert [len(page) for page in pages] == [50, 50, 30]
    assert emails == sorted((f"zwem{n:03d}@example.nl" for n in range(1, 260, 2)), reverse=True)


def test_a_full_invitations_page_stays_under_sixty_kilobytes_with_the_longest_values(admin_client):
    # The longest address the column holds, used by a member with the longest name: the worst row there is.
    [user] = members(1, full_name="N" * 150, email=f"{'u' * 242}@example.nl")
    used = timezone.now()
    invitations(60, email=lambda n: f"{n:03d}{'e' * 239}@example.nl", used_by=user, used_at=used)
    response = admin_client.get(INVITATIONS)
    assert len(response.json()["invitations"]) == INVITATION_PAGE_SIZE
    assert len(response.content) <= MAX_ANSWER_BYTES, len(response.content)


# --- photos --------------------------------------------------------------------------------------------


def test_the_photos_come_newest_first_or_oldest_first(admin_client):
    made = photos(110)
    newest = [p["dipId"] for page in every_page(admin_client, PHOTOS, "photos") for p in page]
    assert newest == [dip.pk for dip in made]  # the first member is the newest
    pages = every_page(admin_client, PHOTOS, "photos", sort="createdAt", dir="asc")
    assert [len(page) for page in pages] == [48, 48, 14] and PHOTO_PAGE_SIZE == 48
    assert [p["dipId"] for page in pages for p in page] == newest[::-1]


def test_photos_registered_at_the_same_moment_page_by_their_id(admin_client):
    moment = timezone.now()
    dips = photos(100)
    Dip.objects.filter(pk__in=[dip.pk for dip in dips]).update(created_at=moment)
    for direction in ("asc", "desc"):
        ids = [p["dipId"] for page in every_page(admin_client, PHOTOS, "photos", dir=direction) for p in page]
        assert ids == sorted(ids, reverse=direction == "desc") and len(ids) == 100


def test_the_photo_search_finds_the_members_name_or_address_in_any_case(admin_client):
    photos(120, full_name=lambda n: "Jan de Vries" if n % 4 == 0 else f"Piet {n}")
    found = [p for page in every_page(admin_client, PHOTOS, "photos", q="JAN DE") for p in page]
    assert len(found) == 30 and {p["userName"] for p in found} == {"Jan de Vries"}
    by_address = admin_client.get(PHOTOS, {"q": "LID00007@"}).json()["photos"]
    assert [p["userName"] for p in by_address] == ["Piet 7"]
    assert admin_client.get(PHOTOS, {"q": "niemand"}).json() == {"photos": [], "next": None}


def test_a_full_photo_page_stays_under_sixty_kilobytes_with_the_longest_names(admin_client):
    photos(60, full_name="N" * 150)
    response = admin_client.get(PHOTOS)
    assert len(response.json()["photos"]) == PHOTO_PAGE_SIZE
    assert len(response.content) <= MAX_ANSWER_BYTES


# --- both: refusals, query counts, indexes -------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "params", "message"),
    [
        (INVITATIONS, {"sort": "status"}, MESSAGE_INVITATIONS_BAD_SORT),
        (INVITATIONS, {"sort": ""}, MESSAGE_INVITATIONS_BAD_SORT),
        (INVITATIONS, {"dir": "sideways"}, MESSAGE_INVITATIONS_BAD_SORT),
        (INVITATIONS, {"q": "x" * 101}, MESSAGE_BAD_SEARCH),
        (INVITATIONS, {"q": "nul\x00teken"}, MESSAGE_BAD_SEARCH),
        (INVITATIONS, {"cursor": "not-a-cursor"}, MESSAGE_INVITATIONS_BAD_CURSOR),
        (INVITATIONS, {"cursor": cursor_of(v="2026-01-01T10:00:00")}, MESSAGE_INVITATIONS_BAD_CURSOR),  # naive
        (INVITATIONS, {"sort": "email", "cursor": cursor_of(s="email", v=3)}, MESSAGE_INVITATIONS_BAD_CURSOR),
        (INVITATIONS, {"sort": "code", "cursor": cursor_of(s="code", v="A\x00")}, MESSAGE_INVITATIONS_BAD_CURSOR),
        (PHOTOS, {"sort": "name"}, MESSAGE_PHOTOS_BAD_SORT),
        (PHOTOS, {"dir": "nieuwste"}, MESSAGE_PHOTOS_BAD_SORT),
        (PHOTOS, {"q": "x" * 101}, MESSAGE_BAD_SEARCH),
        (PHOTOS, {"cursor": "%%%"}, MESSAGE_PHOTOS_BAD_CURSOR),
        (PHOTOS, {"cursor": cursor_of(id="7")}, MESSAGE_PHOTOS_BAD_CURSOR),
    ],
)
def test_a_bad_parameter_gets_a_dutch_json_400(admin_client, url, params, message):
    response = admin_client.get(url, params)
    assert response.status_code == 400 and response["Content-Type"] == "application/json"
    codes = {
        MESSAGE_BAD_SEARCH: "bad_search",
        MESSAGE_INVITATIONS_BAD_SORT: "bad_sort",
        MESSAGE_PHOTOS_BAD_SORT: "bad_sort",
        MESSAGE_INVITATIONS_BAD_CURSOR: "bad_cursor",
        MESSAGE_PHOTOS_BAD_CURSOR: "bad_cursor",
    }
    assert response.json() == {"error": message, "code": codes[message]}


@pytest.mark.parametrize(("url", "key"), [(INVITATIONS, "invitations"), (PHOTOS, "photos")])
def test_a_cursor_of_another_order_or_search_is_refused(admin_client, url, key):
    invitations(120)
    photos(60)
    cursor = admin_client.get(url, {"dir": "asc"}).json()["next"]
    assert admin_client.get(url, {"dir": "asc", "cursor": cursor}).status_code == 200
    for params in ({"dir": "desc"}, {"dir": "asc", "q": "lid"}):
        response = admin_client.get(url, {**params, "cursor": cursor})
        assert response.status_code == 400 and "bestaat niet (meer)" in response.json()["error"]


@pytest.mark.parametrize("size", [5, 3000])
def test_every_page_order_and_search_costs_the_same_few_queries_at_any_size(
    admin_client, size, django_assert_max_num_queries
):
    invitations(size, email=lambda n: f"lid{n:05d}@example.nl")
    photos(size)
    asks = [
        (INVITATIONS, {}),
        (INVITATIONS, {"sort": "email", "dir": "asc", "q": "lid"}),
        (INVITATIONS, {"sort": "expiresAt", "dir": "desc"}),
        (PHOTOS, {}),
        (PHOTOS, {"dir": "asc", "q": "lid"}),
    ]
    for url, params in asks:
        first = admin_client.get(url, params).json()
        # Session, user, admin role, the admin's second factor, the page.
        with django_assert_max_num_queries(5):
            response = admin_client.get(url, {**params, **({"cursor": first["next"]} if first["next"] else {})})
        assert response.status_code == 200


@pytest.mark.parametrize(
    ("url", "params", "index"),
    [
        (INVITATIONS, {"sort": "createdAt", "dir": "asc"}, "invitation_created_sort_idx"),
        (INVITATIONS, {"sort": "expiresAt", "dir": "desc"}, "invitation_expires_sort_idx"),
        (INVITATIONS, {"sort": "email", "dir": "asc"}, "invitation_email_sort_idx"),
        (INVITATIONS, {"sort": "code", "dir": "desc"}, "invitation_code_sort_idx"),
        (PHOTOS, {}, "dip_photo_sort_idx"),
        (PHOTOS, {"dir": "asc"}, "dip_photo_sort_idx"),
    ],
)
def test_on_postgresql_every_order_reads_its_index_from_the_start_or_the_cursor(admin_client, url, params, index):
    requires_postgresql()
    invitations(3)
    photos(3)
    assert index in plans_of_every_query(admin_client, url, params)


def test_on_postgresql_the_invitation_search_reads_a_trigram_index_not_every_invitation():
    requires_postgresql()
    assert "invitation_search_trgm_idx" in search_plan("invitations_invitation", ("email", "code"))
