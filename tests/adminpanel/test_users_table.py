"""The admin users table: pages of at most 100 rows, searched and sorted by the server."""

import pytest

from apps.adminpanel.keyset import MESSAGE_BAD_SEARCH
from apps.adminpanel.selectors import MESSAGE_USERS_BAD_CURSOR, MESSAGE_USERS_BAD_SORT, USERS_PAGE_SIZE
from tests.concurrency import requires_postgresql
from tests.factories import DipFactory, UserChallengeFactory, UserFactory

from .lists import MAX_ANSWER_BYTES, cursor_of, every_page, members, plans_of_every_query, search_plan

pytestmark = pytest.mark.django_db

URL = "/admin/api/gebruikers"
KEY = "users"


def test_the_first_page_holds_the_newest_hundred_and_a_cursor(admin_client):
    members(250)
    answer = admin_client.get(URL).json()
    assert len(answer["users"]) == USERS_PAGE_SIZE == 100
    assert answer["users"][0]["email"] == "lid00000@example.nl" and answer["next"]


def test_the_pages_hold_every_user_once_in_order(admin_client):
    members(250)
    pages = every_page(admin_client, URL, KEY)
    assert [len(page) for page in pages] == [100, 100, 51]  # 250 members and the admin
    emails = [user["email"] for page in pages for user in page]
    assert len(set(emails)) == 251 and emails[-1] == "lid00249@example.nl"


@pytest.mark.parametrize(
    ("sort", "direction", "key", "reverse"),
    [
        ("name", "asc", lambda u: (u["name"].lower(), u["id"]), False),
        ("name", "desc", lambda u: (u["name"].lower(), u["id"]), True),
        ("email", "asc", lambda u: (u["email"], u["id"]), False),
        ("createdAt", "asc", lambda u: (u["createdAt"], u["id"]), False),
        ("dipCount", "desc", lambda u: (u["dipCount"], u["id"]), True),
        ("dipCount", "asc", lambda u: (u["dipCount"], u["id"]), False),
    ],
)
def test_every_sort_order_pages_through_everyone_in_that_order(admin_client, sort, direction, key, reverse):
    # Many ties (dip counts 0..6, names in two cases), so the id tie-break must carry the pages.
    members(230, dip_count=lambda n: n % 7, full_name=lambda n: f"{'zwem' if n % 2 else 'Zwem'} {n % 5}")
    rows = [user for page in every_page(admin_client, URL, KEY, sort=sort, dir=direction) for user in page]
    assert len(rows) == 231 == len({user["id"] for user in rows})
    assert rows == sorted(rows, key=key, reverse=reverse)


def test_sorting_by_dip_count_uses_the_kept_count(admin_client, member):
    card = UserChallengeFactory(user=member)
    for number in range(1, 4):
        DipFactory(user_challenge=card, number=number)
    top = admin_client.get(URL, {"sort": "dipCount", "dir": "desc"}).json()["users"][0]
    assert (top["email"], top["dipCount"], top["isAdmin"]) == ("marit@example.nl", 3, False)


def test_search_finds_name_or_email_in_any_case_and_pages_within_the_matches(admin_client):
    members(150, full_name=lambda n: "Jan de Vries" if n % 3 == 0 else f"Piet {n}")
    UserFactory(full_name="Els", email="JANSEN@example.nl".lower())
    pages = every_page(admin_client, URL, KEY, q="  jAn ")
    found = [user for page in pages for user in page]
    assert len(found) == 51 and len(pages) == 1
    assert {user["name"] for user in found} == {"Jan de Vries", "Els"}
    assert admin_client.get(URL, {"q": "niemand"}).json() == {"users": [], "next": None}


def test_an_answer_stays_under_sixty_kilobytes_with_long_names_and_addresses(admin_client):
    members(120, full_name=lambda n: "N" * 150, email=lambda n: f"{n:03d}{'e' * 230}@example.nl")
    response = admin_client.get(URL)
    assert len(response.json()["users"]) == 100
    assert len(response.content) <= MAX_ANSWER_BYTES


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"sort": "password"}, MESSAGE_USERS_BAD_SORT),
        ({"dir": "sideways"}, MESSAGE_USERS_BAD_SORT),
        ({"q": "x" * 101}, MESSAGE_BAD_SEARCH),
        ({"cursor": "not-a-cursor"}, MESSAGE_USERS_BAD_CURSOR),
        ({"cursor": "eyJzIjoibmFtZSJ9"}, MESSAGE_USERS_BAD_CURSOR),  # {"s":"name"}: no position
        ({"q": "nul\x00teken"}, MESSAGE_BAD_SEARCH),
        ({"sort": "name", "cursor": cursor_of(s="name", v="a\x00b")}, MESSAGE_USERS_BAD_CURSOR),
        ({"sort": "dipCount", "cursor": cursor_of(s="dipCount", v="veel")}, MESSAGE_USERS_BAD_CURSOR),
        ({"cursor": cursor_of(v="2026-01-01T10:00:00")}, MESSAGE_USERS_BAD_CURSOR),  # a naive moment
        ({"cursor": cursor_of(v="2026-01-01T10:00:00+00:00", id="1")}, MESSAGE_USERS_BAD_CURSOR),
    ],
)
def test_a_bad_parameter_gets_a_dutch_json_400(admin_client, params, message):
    response = admin_client.get(URL, params)
    assert response.status_code == 400 and response["Content-Type"] == "application/json"
    codes = {
        MESSAGE_USERS_BAD_SORT: "bad_sort",
        MESSAGE_BAD_SEARCH: "bad_search",
        MESSAGE_USERS_BAD_CURSOR: "bad_cursor",
    }
    assert response.json() == {"error": message, "code": codes[message]}


def test_a_cursor_beyond_every_row_answers_an_empty_page(admin_client):
    members(3)
    cursor = cursor_of(s="dipCount", d="asc", v=10**30, id=10**30)
    response = admin_client.get(URL, {"sort": "dipCount", "dir": "asc", "cursor": cursor})
    assert response.status_code == 200 and response.json() == {"users": [], "next": None}


def test_a_cursor_of_another_sort_or_search_is_refused(admin_client):
    members(120)
    cursor = admin_client.get(URL, {"sort": "name"}).json()["next"]
    assert admin_client.get(URL, {"sort": "name", "cursor": cursor}).status_code == 200
    for params in ({"sort": "dipCount"}, {"sort": "name", "dir": "asc"}, {"sort": "name", "q": "lid"}):
        response = admin_client.get(URL, {**params, "cursor": cursor})
        assert response.status_code == 400 and response.json() == {
            "error": MESSAGE_USERS_BAD_CURSOR,
            "code": "bad_cursor",
        }


@pytest.mark.parametrize("size", [5, 3000])
def test_every_page_and_sort_costs_the_same_few_queries_at_any_size(admin_client, size, django_assert_max_num_queries):
    members(size, dip_count=lambda n: n % 11)
    for params in ({}, {"sort": "dipCount", "dir": "desc"}, {"sort": "name", "q": "lid"}):
        first = admin_client.get(URL, params).json()
        # Session, user, admin role, the admin's second factor, the page, the admin roles on it.
        with django_assert_max_num_queries(6):
            response = admin_client.get(URL, {**params, **({"cursor": first["next"]} if first["next"] else {})})
        assert response.status_code == 200


def test_on_postgresql_the_search_reads_a_trigram_index_not_every_member():
    requires_postgresql()
    assert "user_search_trgm_idx" in search_plan("accounts_user", ("full_name", "email"))


@pytest.mark.parametrize(
    ("params", "index"),
    [
        ({}, "user_created_sort_idx"),
        ({"sort": "name", "dir": "asc"}, "user_name_sort_idx"),
        ({"sort": "dipCount", "dir": "desc"}, "user_dip_count_idx"),
        ({"sort": "email", "dir": "desc"}, "accounts_user_email"),
    ],
)
def test_on_postgresql_every_order_reads_its_index(admin_client, params, index):
    requires_postgresql()
    members(3)
    assert index in plans_of_every_query(admin_client, URL, params)
