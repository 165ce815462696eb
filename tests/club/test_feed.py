"""The club feed: what shows (only what members share), paging by cursor, the query budget, the page cache."""

import datetime
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.utils import timezone

from apps.challenges.conditions import DipConditions
from apps.challenges.models import Challenge, ClubChallenge, Dip
from apps.challenges.services.cards import challenge_start
from apps.challenges.services.dip_changes import dip_details_update
from apps.challenges.services.dips import dip_register
from apps.challenges.services.sharing import dip_photo_share_set
from apps.club.feed import Cursor, cursor_parse, feed_items
from apps.club.models import Brrr, ClubSharing
from apps.club.services import club_sharing_set, item_hide
from apps.events.services import event_cancel
from apps.together.models import Meetup
from tests.adminpanel.lists import plans_of_every_query
from tests.challenges.photo_samples import image_bytes
from tests.events.test_series_feed import series_of
from tests.factories import (
    ClubChallengeEntryFactory,
    ClubChallengeFactory,
    ClubMessageFactory,
    ClubSharingFactory,
    DipFactory,
    EventFactory,
    MeetupFactory,
    UserBadgeFactory,
    UserChallengeFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def waterdieren():
    return Challenge.objects.get(category=Challenge.Category.WATERDIEREN)


def sharing_member(name: str, *, share: bool = True):
    user = UserFactory(full_name=name)
    ClubSharingFactory(user=user, share_dips=share)
    return user


def page(client, query: str = "") -> str:
    response = client.get("/club" + query)
    assert response.status_code == 200
    return response.content.decode()


def test_a_shared_dip_reads_as_the_issue_says(member_client, waterdieren):
    kees = sharing_member("Kees")
    challenge_start(user=kees, challenge_id=waterdieren.pk)
    dip_register(user=kees, conditions=DipConditions(water_temperature=Decimal("6.0"), spot="de Sloterplas"))
    assert "Kees plonste in de Sloterplas · 6 °C" in page(member_client)


def test_dips_and_badges_show_only_while_their_owner_shares(member_client):
    sharer, private, undecided = (
        sharing_member("Sara Deelt"),
        sharing_member("Piet Prive", share=False),
        UserFactory(full_name="Ulla Onbeslist"),
    )
    for user in (sharer, private, undecided):
        UserBadgeFactory(user_challenge=UserChallengeFactory(user=user), badge__name=f"Badge van {user.full_name}")
        DipFactory(user_challenge=UserChallengeFactory(user=user, is_active=False), spot=f"Plek van {user.full_name}")
    html = page(member_client)
    assert "Sara Deelt plonste in Plek van Sara Deelt" in html and "Badge van Sara Deelt" in html
    assert "Piet Prive" not in html and "Ulla Onbeslist" not in html
    with_unshare = club_sharing_set(user=sharer, share_dips=False)
    assert not with_unshare.share_dips
    assert "Sara Deelt" not in page(member_client)  # unshared: the items leave the feed (the cache moved)


def test_a_photo_shows_only_when_that_dip_shares_it_and_only_to_signed_in_members(client, member, waterdieren):
    kees = sharing_member("Kees")
    challenge_start(user=kees, challenge_id=waterdieren.pk)
    client.force_login(kees)
    upload = SimpleUploadedFile("zee.jpg", image_bytes("JPEG", size=(300, 200)), content_type="image/jpeg")
    shared = client.post("/challenge/plons", {"photo": upload, "share_photo": "1"}).json()["dip"]
    assert shared["sharePhoto"] is True
    second = Dip.objects.create(
        user=kees,
        user_challenge=Dip.objects.get(pk=shared["id"]).user_challenge,
        number=2,
        dip_date=timezone.localdate() - datetime.timedelta(days=1),
        photo="1/x.jpg",
        thumbnail="1/x.thumb.jpg",
    )
    client.force_login(member)
    html = page(client)
    assert f"/club/foto/{shared['id']}/klein" in html
    assert f"/club/foto/{second.pk}" not in html  # that dip's photo is not shared
    for url in (f"/club/foto/{shared['id']}", f"/club/foto/{shared['id']}/klein"):
        response = client.get(url)
        assert response.status_code == 200 and response["Cache-Control"] == "private, max-age=300"
        assert b"".join(response.streaming_content)[:2] == b"\xff\xd8"
    assert client.get(f"/club/foto/{second.pk}").status_code == 404
    # The member's own photo address stays theirs alone.
    assert client.get(f"/foto/{shared['id']}").status_code == 404
    client.logout()
    response = client.get(f"/club/foto/{shared['id']}")
    assert response.status_code == 302 and response["Location"].startswith("/auth")
    # Unshared later: gone from the feed and from the club address.
    client.force_login(member)
    dip_photo_share_set(user=kees, dip_id=shared["id"], share=False)
    assert "/club/foto/" not in page(client)
    assert client.get(f"/club/foto/{shared['id']}").status_code == 404


def test_a_photo_of_a_member_who_stopped_sharing_dips_is_not_served(member_client):
    owner = sharing_member("Kees")
    dip = DipFactory(user_challenge=UserChallengeFactory(user=owner), photo="1/a.jpg", share_photo=True)
    ClubSharing.objects.filter(user=owner).update(share_dips=False)
    assert member_client.get(f"/club/foto/{dip.pk}").status_code == 404


def test_events_show_and_hidden_items_never_do(member_client, admin_user):
    event = EventFactory(title="Nieuwjaarsduik", location="Scheveningen")
    kees = sharing_member("Kees")
    dip = DipFactory(user_challenge=UserChallengeFactory(user=kees), spot="Zandvoort")
    html = page(member_client)
    assert "Nieuw event: Nieuwjaarsduik" in html and "Kees plonste in Zandvoort" in html
    item_hide(actor=admin_user, kind="dip", object_id=dip.pk)
    item_hide(actor=admin_user, kind="event", object_id=event.pk)
    html = page(member_client)
    assert "Nieuwjaarsduik" not in html and "Kees plonste" not in html


def test_the_feed_pages_by_cursor_newest_first_without_gaps_or_repeats():
    now = timezone.now()
    owner = sharing_member("Kees")
    card = UserChallengeFactory(user=owner)
    # Several items at the very same moment, of different kinds: the cursor tells them apart.
    dips = [DipFactory(user_challenge=card, created_at=now - datetime.timedelta(minutes=n // 3)) for n in range(25)]
    badges = [UserBadgeFactory(user_challenge=UserChallengeFactory(user=owner, is_active=False)) for _ in range(3)]
    for award in badges:
        award.earned_at = now
        award.save()
    events = [EventFactory(created_at=now) for _ in range(2)]
    seen, cursor = [], None
    while True:
        items, cursor = feed_items(cursor=cursor, limit=7)
        seen += items
        if cursor is None:
            break
        assert cursor_parse(cursor.encode()) == cursor
    keys = [item.key for item in seen]
    assert len(keys) == len(set(keys)) == len(dips) + len(badges) + len(events)
    assert [item.sort_key for item in seen] == sorted((item.sort_key for item in seen), reverse=True)


@pytest.mark.parametrize("text", ["", "x", "1.dip", "abc.dip.1", "1.onbekend.1", "9" * 30 + ".dip.1", "1.dip.-1"])
def test_a_wrong_cursor_is_the_first_page(member_client, text):
    assert cursor_parse(text) is None
    assert member_client.get("/club", {"na": text}).status_code == 200


def test_a_cursor_in_the_query_string_opens_the_next_page(member_client):
    owner = sharing_member("Kees")
    card = UserChallengeFactory(user=owner)
    now = timezone.now()
    for n in range(25):
        DipFactory(user_challenge=card, spot=f"Plek{n:02d}", created_at=now - datetime.timedelta(hours=n))
    first = page(member_client)
    assert "Plek00" in first and "Plek19" in first and "Plek20" not in first
    cursor = Cursor(now - datetime.timedelta(hours=19), "dip", Dip.objects.get(spot="Plek19").pk).encode()
    assert f"?na={cursor}" in first
    second = page(member_client, f"?na={cursor}")
    assert "Plek20" in second and "Plek24" in second and "Plek19" not in second


def _club_of(size: int, looking):
    for n in range(size):
        owner = sharing_member(f"Lid {n}")
        card = UserChallengeFactory(user=owner)
        DipFactory(user_challenge=card, photo="x.jpg", share_photo=True)
        UserBadgeFactory(user_challenge=card)
        EventFactory()
        series_of(3, title=f"Reeks {n}")  # one item per series (issue 34 §3)
        event_cancel(event_id=EventFactory().pk, reason="Storm")  # and one per cancellation
        MeetupFactory(proposer=owner, place=f"Plek {n}")
        ClubMessageFactory(title=f"Bericht {n}")
        challenge = ClubChallengeFactory(kind=ClubChallenge.Kind.DAYS, target=1)
        ClubChallengeEntryFactory(user=owner, club_challenge=challenge, completed_at=timezone.now())
        ClubChallengeEntryFactory(user=looking, club_challenge=challenge)  # the member's own progress shows


# The feed's first page (one query for its nine sources), the Brrr!s, the sharing choice, the club challenges with
# the member's dip dates, and the session and member: the same at any club size.
FEED_QUERY_BUDGET = 8


@pytest.mark.parametrize("size", [2, 40])
def test_the_feed_costs_a_fixed_number_of_queries(member_client, member, django_assert_max_num_queries, size):
    from apps.club.services import brrr_set

    _club_of(size, member)
    reactor = UserFactory()
    for dip in Dip.objects.all():
        brrr_set(user=reactor, kind="dip", object_id=dip.pk, given=True)
    for meetup in Meetup.objects.all():  # given before plonsafspraken took none (issue 34 §6): still counted
        Brrr.objects.create(user=reactor, kind="meetup", object_id=meetup.pk, owner_id=meetup.proposer_id)
    with django_assert_max_num_queries(FEED_QUERY_BUDGET):
        html = page(member_client)
    # Every kind of item was on the page the budget paid for.
    assert "plonste" in html and "verdiende de badge" in html and "Nieuw event" in html
    assert "Elke " in html and "Afgelast: " in html
    assert "stelt voor" in html and "Clubbericht: Bericht" in html and "voltooide de clubchallenge" in html
    assert "Clubchallenge" in html and "Doe mee" not in html  # joined everything: progress, no "Doe mee"


def test_the_page_is_cached_and_a_dip_detail_change_refreshes_it(member_client, waterdieren):
    kees = sharing_member("Kees")
    challenge_start(user=kees, challenge_id=waterdieren.pk)
    dip = dip_register(user=kees).dip
    assert "Kees plonste" in page(member_client)
    dip_details_update(user=kees, dip_id=dip.pk, conditions=DipConditions(spot="Noordzee"))
    assert "Kees plonste in Noordzee" in page(member_client)


def test_the_first_visit_asks_once_with_a_clear_yes_or_no(member_client, member):
    html = page(member_client)
    assert "Deel mijn plonsen met de club?" in html and "Ja, deel mijn plonsen" in html and "Nee, liever niet" in html
    response = member_client.post("/club/delen", {"share_dips": "nee", "back": "club"})
    assert response.status_code == 302 and response["Location"] == "/club"
    assert ClubSharing.objects.get(user=member).share_dips is False
    assert "Deel mijn plonsen met de club?" not in page(member_client)


def test_the_account_page_has_the_choice_and_changes_it(member_client, member):
    html = member_client.get("/account").content.decode()
    assert "Deel mijn plonsen met de club" in html
    response = member_client.post("/club/delen", {"share_dips": "ja", "back": "account"})
    assert response["Location"] == "/account#club-delen"
    assert ClubSharing.objects.get(user=member).share_dips is True
    assert 'value="ja" checked' in member_client.get("/account").content.decode()


@pytest.mark.parametrize("data", [{}, {"share_dips": "misschien"}, {"share_dips": "ja", "back": "//evil.example"}])
def test_a_wrong_sharing_choice_is_a_message_never_a_500(member_client, member, data):
    response = member_client.post("/club/delen", data)
    assert response.status_code == 302 and response["Location"] in ("/club", "/account", "/club#club-delen")
    if data.get("share_dips") != "ja":
        assert not ClubSharing.objects.filter(user=member).exists()


def test_anonymous_visitors_go_to_auth_and_change_nothing(client):
    assert client.get("/club")["Location"].startswith("/auth")
    for path in ("/club/delen", "/club/brrr", "/club/verbergen"):
        response = client.post(path, {"share_dips": "ja", "item": "dip:1", "given": "1"})
        assert response.status_code == 302 and response["Location"].startswith("/auth")
    assert not ClubSharing.objects.exists()


def test_the_account_form_also_turns_the_brrr_mails_off_and_on(member_client, member):
    assert 'name="brrr_mails" checked' in member_client.get("/account").content.decode()
    member_client.post("/club/delen", {"share_dips": "ja", "back": "account", "brrr_mails_shown": "1"})
    member.mail_preference.refresh_from_db()
    assert member.mail_preference.club_notices is False
    assert 'name="brrr_mails" checked' not in member_client.get("/account").content.decode()
    member_client.post(
        "/club/delen", {"share_dips": "ja", "back": "account", "brrr_mails_shown": "1", "brrr_mails": "on"}
    )
    member.mail_preference.refresh_from_db()
    assert member.mail_preference.club_notices is True


def test_after_the_choice_the_page_says_it_and_leads_to_changing_it(member_client, member):
    club_sharing_set(user=member, share_dips=True)
    html = page(member_client)
    assert "Je deelt je plonsen met de club." in html and 'href="/account#club-delen"' in html
    club_sharing_set(user=member, share_dips=False)
    assert "Je deelt je plonsen niet met de club." in page(member_client)


def test_the_dip_endpoints_take_share_photo(client, member, other_member, waterdieren):
    challenge_start(user=member, challenge_id=waterdieren.pk)
    client.force_login(member)
    plain = client.post("/challenge/plons", {"share_photo": "1"}).json()["dip"]
    assert plain["sharePhoto"] is False  # no photo, nothing shared
    dip = Dip.objects.get(pk=plain["id"])
    Dip.objects.filter(pk=dip.pk).update(photo="1/x.jpg")
    answer = client.post(f"/challenge/plons/{dip.pk}", {"share_photo": "1"}).json()
    assert answer["dip"]["sharePhoto"] is True and Dip.objects.get(pk=dip.pk).share_photo
    # Without the field the choice stays; "0" takes it back.
    client.post(f"/challenge/plons/{dip.pk}", {"spot": "Pier"})
    assert Dip.objects.get(pk=dip.pk).share_photo
    client.post(f"/challenge/plons/{dip.pk}", {"share_photo": "0"})
    assert not Dip.objects.get(pk=dip.pk).share_photo
    client.force_login(other_member)
    response = client.post(f"/challenge/plons/{dip.pk}", {"share_photo": "1"})
    assert response.status_code == 404 and not Dip.objects.get(pk=dip.pk).share_photo


# The sources whose rows grow with the club's history, and the index that gives each one's rows newest first.
HISTORY_INDEXES = {"dip": "dip_recent_idx", "badge": "userbadge_recent_idx", "clubchallenge": "clubentry_completed_idx"}


def test_each_growing_source_reads_its_page_from_an_index_in_the_feeds_order(member_client, member):
    """A page reads at most a page (and one) of each source: PostgreSQL can take the newest rows from an
    index on (moment, id) and stop, rather than read and sort every shared dip, badge and completion. Asked
    as tests/adminpanel/lists.py asks it, with sequential scans and sorts priced out on a small table."""
    if connection.vendor != "postgresql":
        pytest.skip("the plans are PostgreSQL's")
    _club_of(3, member)
    plans = plans_of_every_query(member_client, "/club", {})
    for kind, index in HISTORY_INDEXES.items():
        assert index in plans, f"the feed's {kind} query uses no index in its order"
