"""The feed's later kinds of item: plonsafspraken, club messages and completed club challenges; and the club
challenges with "Doe mee" and progress on /club. Through the real services, the page cache included."""

import datetime

import pytest
from django.utils import timezone

from apps.challenges.models import ClubChallenge, ClubChallengeEntry
from apps.challenges.services.club_challenges import club_challenge_join
from apps.challenges.services.dip_changes import dip_undo
from apps.challenges.services.dips import dip_register
from apps.club.feed import feed_item, feed_items
from apps.club.models import Brrr
from apps.club.refusals import ClubRefusal
from apps.club.services import ClubError, ClubItemNotFoundError, brrr_set, club_sharing_set, item_hide
from apps.core.formatting import dutch_date
from apps.notifications.services import club_message_send
from apps.together.services import meetup_cancel, meetup_propose
from tests.factories import (
    ClubChallengeEntryFactory,
    ClubChallengeFactory,
    ClubMessageFactory,
    ClubSharingFactory,
    MeetupFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def page(client, query: str = "") -> str:
    response = client.get("/club" + query)
    assert response.status_code == 200
    return response.content.decode()


def sharing_member(name: str, *, share: bool = True):
    user = UserFactory(full_name=name)
    ClubSharingFactory(user=user, share_dips=share)
    return user


# --- plonsafspraken ---------------------------------------------------------------------------------------


def test_a_plonsafspraak_reads_who_when_and_where_and_leads_to_samen(member_client):
    kees = UserFactory(full_name="Kees Koud")
    starts = timezone.now() + datetime.timedelta(days=2)
    meetup = meetup_propose(user=kees, starts_at=starts, place="Sloterplas")
    local = timezone.localtime(starts)
    expected = f"Kees Koud stelt voor: samen plonsen op {dutch_date(local.date())} om {local:%H:%M}, Sloterplas"
    html = page(member_client)
    assert expected in html
    assert f'id="item-meetup-{meetup.pk}"' in html and 'href="/samen"' in html


def test_a_plonsafspraak_shows_without_a_sharing_choice_since_samen_shows_it_to_every_member(member_client):
    MeetupFactory(proposer=UserFactory(full_name="Kees Koud"), place="Sloterplas")  # Kees never chose to share
    assert "Kees Koud stelt voor" in page(member_client)


def test_a_cancelled_plonsafspraak_leaves_the_feed_and_the_cached_page(member_client):
    kees = UserFactory(full_name="Kees Koud")
    meetup = meetup_propose(user=kees, starts_at=timezone.now() + datetime.timedelta(days=1), place="Sloterplas")
    assert "Kees Koud stelt voor" in page(member_client)
    meetup_cancel(user=kees, meetup_id=meetup.pk)
    assert "Kees Koud stelt voor" not in page(member_client)


def test_only_coming_and_recent_plonsafspraken_show():
    now = timezone.now()
    recent = MeetupFactory(starts_at=now - datetime.timedelta(days=6))
    old = MeetupFactory(starts_at=now - datetime.timedelta(days=8))
    coming = MeetupFactory(starts_at=now + datetime.timedelta(days=3))
    keys = {item.key for item in feed_items()[0]}
    assert {f"meetup:{recent.pk}", f"meetup:{coming.pk}"} <= keys
    assert f"meetup:{old.pk}" not in keys


def test_a_plonsafspraak_of_a_deactivated_member_does_not_show():
    gone = UserFactory(is_active=False)
    meetup = MeetupFactory(proposer=gone)
    assert feed_item(kind="meetup", object_id=meetup.pk) is None


def test_a_plonsafspraak_takes_no_brrr_and_shows_no_button(member_client, member):
    """Issue 34 §6: a plonsafspraak is a plan, not a swim: the server refuses with a code, the page has no button."""
    meetup = MeetupFactory(proposer=UserFactory(full_name="Kees Koud"))
    with pytest.raises(ClubError) as refused:
        brrr_set(user=member, kind="meetup", object_id=meetup.pk, given=True)
    assert refused.value.code == ClubRefusal.BRRR_NOT_HERE
    response = member_client.post("/club/brrr", {"item": f"meetup:{meetup.pk}", "given": "1"})
    assert response.status_code == 302 and not Brrr.objects.exists()
    html = page(member_client)
    part = html[html.index(f'id="item-meetup-{meetup.pk}"') :]
    assert "club-brrr" not in part[: part.index("</article>")]


# --- club messages ----------------------------------------------------------------------------------------


def test_club_messages_show_title_and_body_newest_first(member_client, admin_user):
    club_message_send(author=admin_user, title="Zondag samen", body="Om 10:00 bij de pier.\nNeem een muts mee!")
    later = ClubMessageFactory(title="Nieuwe badges", body="Ze zijn binnen.")
    later.created_at = timezone.now() + datetime.timedelta(minutes=1)
    later.save()
    html = page(member_client)
    assert "Clubbericht: Zondag samen" in html and "Om 10:00 bij de pier.<br>Neem een muts mee!" in html
    assert html.index("Clubbericht: Nieuwe badges") < html.index("Clubbericht: Zondag samen")


def test_a_new_club_message_refreshes_the_cached_page(member_client, admin_user):
    assert "Clubbericht" not in page(member_client)
    club_message_send(author=admin_user, title="IJs op de plas", body="Niet zwemmen vandaag.")
    assert "Clubbericht: IJs op de plas" in page(member_client)


def test_a_club_message_takes_no_brrr(member):
    message = ClubMessageFactory()
    with pytest.raises(ClubError) as refused:
        brrr_set(user=member, kind="message", object_id=message.pk, given=True)
    assert refused.value.code == ClubRefusal.BRRR_NOT_HERE and not Brrr.objects.exists()


# --- hiding the new kinds ---------------------------------------------------------------------------------


def test_an_admin_hides_each_new_kind_and_brrr_on_a_hidden_one_is_refused(member_client, member, admin_user):
    kees = sharing_member("Kees Koud")
    meetup = MeetupFactory(proposer=kees, place="Sloterplas")
    message = ClubMessageFactory(title="Zondag samen")
    entry = ClubChallengeEntryFactory(
        user=kees, club_challenge=ClubChallengeFactory(name="Decemberduik"), completed_at=timezone.now()
    )
    html = page(member_client)
    assert (
        "Kees Koud stelt voor" in html and "Zondag samen" in html and "voltooide de clubchallenge Decemberduik" in html
    )
    for kind, object_id in (("meetup", meetup.pk), ("message", message.pk), ("clubchallenge", entry.pk)):
        item_hide(actor=admin_user, kind=kind, object_id=object_id)
        with pytest.raises(ClubItemNotFoundError):
            brrr_set(user=member, kind=kind, object_id=object_id, given=True)
    html = page(member_client)
    assert "Kees Koud stelt voor" not in html and "Zondag samen" not in html and "voltooide" not in html


def test_the_admin_hide_form_takes_a_plonsafspraak(client, admin_user):
    meetup = MeetupFactory(proposer=UserFactory(full_name="Kees Koud"))
    client.force_login(admin_user)
    assert client.post("/club/verbergen", {"item": f"meetup:{meetup.pk}"}).status_code == 302
    assert feed_item(kind="meetup", object_id=meetup.pk) is None


# --- a completed club challenge ---------------------------------------------------------------------------


def _one_day_challenge(name: str = "Decemberduik") -> ClubChallenge:
    return ClubChallengeFactory(name=name, kind=ClubChallenge.Kind.DAYS, target=1)


def test_completing_a_club_challenge_is_a_feed_item_when_the_member_shares(member_client):
    kees = sharing_member("Kees Koud")
    challenge = _one_day_challenge()
    club_challenge_join(user=kees, club_challenge_id=challenge.pk)
    assert "voltooide" not in page(member_client)
    dip_register(user=kees)  # a dip without a card counts for the club challenge and completes it
    entry = ClubChallengeEntry.objects.get(user=kees)
    assert entry.completed_at is not None
    html = page(member_client)
    assert "Kees Koud voltooide de clubchallenge Decemberduik" in html
    assert f'id="item-clubchallenge-{entry.pk}"' in html


def test_a_completion_shows_only_while_the_member_shares_their_dips(member_client):
    kees = sharing_member("Kees Koud", share=False)
    entry = ClubChallengeEntryFactory(user=kees, club_challenge=_one_day_challenge(), completed_at=timezone.now())
    assert "voltooide" not in page(member_client)
    club_sharing_set(user=kees, share_dips=True)
    assert "Kees Koud voltooide de clubchallenge Decemberduik" in page(member_client)
    club_sharing_set(user=kees, share_dips=False)
    assert "voltooide" not in page(member_client)
    assert feed_item(kind="clubchallenge", object_id=entry.pk) is None


def test_a_member_who_never_chose_has_no_completion_in_the_feed():
    entry = ClubChallengeEntryFactory(club_challenge=_one_day_challenge(), completed_at=timezone.now())
    assert feed_item(kind="clubchallenge", object_id=entry.pk) is None


def test_an_undone_dip_that_takes_the_completion_back_takes_the_item_too(member_client):
    kees = sharing_member("Kees Koud")
    club_challenge_join(user=kees, club_challenge_id=_one_day_challenge().pk)
    dip = dip_register(user=kees).dip
    assert "Kees Koud voltooide" in page(member_client)
    dip_undo(user=kees, dip_id=dip.pk)
    assert ClubChallengeEntry.objects.get(user=kees).completed_at is None
    assert "Kees Koud voltooide" not in page(member_client)


def test_a_joined_but_unfinished_challenge_is_no_feed_item():
    kees = sharing_member("Kees Koud")
    entry = ClubChallengeEntryFactory(user=kees, club_challenge=_one_day_challenge())
    assert feed_item(kind="clubchallenge", object_id=entry.pk) is None


# --- club challenges on /club -----------------------------------------------------------------------------


def test_club_shows_running_and_coming_challenges_with_doe_mee_back_to_club(member_client):
    today = timezone.localdate()
    ClubChallengeFactory(name="Elke dag december", kind=ClubChallenge.Kind.EVERY_DAY, starts_on=today)
    ClubChallengeFactory(name="Januari samen", starts_on=today + datetime.timedelta(days=20))
    ClubChallengeFactory(
        name="Voorbij", starts_on=today - datetime.timedelta(days=20), ends_on=today - datetime.timedelta(days=1)
    )
    html = page(member_client)
    assert "Elke dag december" in html and "Januari samen" in html and "Voorbij" not in html
    assert html.count(">Doe mee</button>") == 2
    assert html.count('name="next" value="/club"') == 2
    assert "Begint op" in html


def test_doe_mee_on_club_joins_and_comes_back_with_the_progress(member_client, member):
    challenge = ClubChallengeFactory(name="Tien dagen", kind=ClubChallenge.Kind.DAYS, target=3)
    response = member_client.post("/challenge/club/meedoen", {"club_challenge_id": challenge.pk, "next": "/club"})
    assert response.status_code == 302 and response["Location"] == "/club"
    assert ClubChallengeEntry.objects.filter(user=member, club_challenge=challenge).exists()
    html = page(member_client)
    assert "Je doet mee met Tien dagen!" in html
    assert "<strong>0 van 3</strong>" in html and "Niet meer meedoen" in html and ">Doe mee</button>" not in html
    dip_register(user=member)
    assert "<strong>1 van 3</strong>" in page(member_client)  # the cached page follows the dip


def test_stopping_on_club_comes_back_to_club(member_client, member):
    challenge = ClubChallengeFactory(name="Tien dagen")
    club_challenge_join(user=member, club_challenge_id=challenge.pk)
    response = member_client.post("/challenge/club/stoppen", {"club_challenge_id": challenge.pk, "next": "/club"})
    assert response["Location"] == "/club"
    assert not ClubChallengeEntry.objects.filter(user=member).exists()
    assert ">Doe mee</button>" in page(member_client)


def test_a_club_goal_shows_the_clubs_total_and_who_takes_part(member_client, member):
    goal = ClubChallengeFactory(name="Honderd samen", kind=ClubChallenge.Kind.CLUB_GOAL, target=100)
    kees = UserFactory()
    club_challenge_join(user=kees, club_challenge_id=goal.pk)
    dip_register(user=kees)
    html = page(member_client)
    assert "Samen <strong>1 van 100</strong> plonsen · 1 doet mee" in html


def test_joining_a_challenge_already_done_celebrates_on_club(member_client, member):
    club_challenge_join(user=member, club_challenge_id=_one_day_challenge("Eerste").pk)
    dip_register(user=member)
    later = _one_day_challenge("Tweede")  # today's dip counts at once: joining completes it
    response = member_client.post(
        "/challenge/club/meedoen", {"club_challenge_id": later.pk, "next": "/club"}, follow=True
    )
    html = response.content.decode()
    assert 'id="celebration-data"' in html and "Tweede" in html


def test_the_club_challenges_head_only_the_first_page(member_client):
    ClubChallengeFactory(name="Tien dagen")
    assert "Tien dagen" in page(member_client)
    assert "Tien dagen" not in page(member_client, "?na=1700000000000000.dip.1")


def test_a_next_elsewhere_goes_to_the_dashboard(member_client):
    challenge = ClubChallengeFactory()
    response = member_client.post(
        "/challenge/club/meedoen", {"club_challenge_id": challenge.pk, "next": "https://example.com/club"}
    )
    assert response["Location"] == "/dashboard#clubchallenges"
