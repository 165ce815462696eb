"""Plonsafspraken: the rules of a proposal, joining and leaving, cancelling and who is told, the pages."""

import datetime
import re

import pytest
from django.contrib.messages import get_messages
from django.utils import timezone

from apps.notifications.messages import render_mail
from apps.notifications.models import Mail
from apps.together.models import Meetup, MeetupParticipant
from apps.together.services import (
    MESSAGE_GONE,
    MESSAGE_NOT_YOURS,
    MESSAGE_PAST,
    MESSAGE_PLACE_MISSING,
    MESSAGE_PLACE_TOO_LONG,
    MESSAGE_PROPOSER_STAYS,
    MESSAGE_STARTED,
    MESSAGE_TOO_FAR,
    MESSAGE_TOO_MANY,
    MESSAGE_WHEN_MISSING,
    TogetherError,
    meetup_cancel,
    meetup_join,
    meetup_leave,
    meetup_propose,
)
from tests.factories import MeetupFactory, UserFactory

pytestmark = pytest.mark.django_db

HOUR = datetime.timedelta(hours=1)


def _soon(hours: float = 24) -> datetime.datetime:
    return timezone.now() + datetime.timedelta(hours=hours)


def test_a_proposal_puts_the_proposer_on_the_list():
    member = UserFactory(full_name="Anna Dijk")
    meetup = meetup_propose(user=member, starts_at=_soon(), place="  Sloterplas   steiger ", note=" Warme thee mee ")
    assert (meetup.place, meetup.note) == ("Sloterplas steiger", "Warme thee mee")
    assert list(meetup.participants.values_list("user_id", flat=True)) == [member.pk]


@pytest.mark.parametrize(
    ("starts_at", "place", "note", "field", "message"),
    [
        (None, "Sloterplas", "", "starts_at", MESSAGE_WHEN_MISSING),
        (-HOUR, "Sloterplas", "", "starts_at", MESSAGE_PAST),
        (datetime.timedelta(days=14, minutes=5), "Sloterplas", "", "starts_at", MESSAGE_TOO_FAR),
        (HOUR, "   ", "", "place", MESSAGE_PLACE_MISSING),
        (HOUR, "x" * 101, "", "place", MESSAGE_PLACE_TOO_LONG),
        (HOUR, "Sloterplas", "x" * 301, "note", "Houd je opmerking kort: hoogstens 300 tekens."),
    ],
)
def test_the_rules_of_a_proposal_answer_in_dutch_per_field(starts_at, place, note, field, message):
    moment = None if starts_at is None else timezone.now() + starts_at
    with pytest.raises(TogetherError) as refused:
        meetup_propose(user=UserFactory(), starts_at=moment, place=place, note=note)
    assert refused.value.fields[field] == message
    assert not Meetup.objects.exists()


def test_fourteen_days_ahead_is_still_fine():
    meetup_propose(user=UserFactory(), starts_at=timezone.now() + datetime.timedelta(days=14), place="IJ")
    assert Meetup.objects.count() == 1


def test_at_most_three_open_afspraken_per_member_cancelled_and_past_ones_do_not_count():
    member = UserFactory()
    for hours in (1, 2, 3):
        meetup_propose(user=member, starts_at=_soon(hours), place="Sloterplas")
    with pytest.raises(TogetherError, match=re.escape(MESSAGE_TOO_MANY)):
        meetup_propose(user=member, starts_at=_soon(4), place="Sloterplas")
    meetup_cancel(user=member, meetup_id=Meetup.objects.first().pk)
    MeetupFactory(proposer=member, starts_at=timezone.now() - HOUR)  # past: not open
    meetup_propose(user=member, starts_at=_soon(4), place="Sloterplas")
    # Another member is not limited by this one's afspraken.
    meetup_propose(user=UserFactory(), starts_at=_soon(4), place="Sloterplas")


def test_joining_twice_is_once_and_leaving_twice_is_harmless():
    meetup, member = MeetupFactory(), UserFactory()
    first = meetup_join(user=member, meetup_id=meetup.pk)
    assert meetup_join(user=member, meetup_id=meetup.pk).pk == first.pk
    assert meetup.participants.count() == 2
    assert meetup_leave(user=member, meetup_id=meetup.pk) is True
    assert meetup_leave(user=member, meetup_id=meetup.pk) is False
    assert meetup.participants.count() == 1


def test_the_proposer_cancels_instead_of_leaving():
    meetup = MeetupFactory()
    with pytest.raises(TogetherError, match=re.escape(MESSAGE_PROPOSER_STAYS)):
        meetup_leave(user=meetup.proposer, meetup_id=meetup.pk)


def test_a_started_cancelled_or_unknown_afspraak_takes_nobody_new():
    member = UserFactory()
    started = MeetupFactory(starts_at=timezone.now() - datetime.timedelta(minutes=5))
    with pytest.raises(TogetherError, match=re.escape(MESSAGE_STARTED)):
        meetup_join(user=member, meetup_id=started.pk)
    long_ago = MeetupFactory(starts_at=timezone.now() - 2 * HOUR)
    cancelled = MeetupFactory(cancelled_at=timezone.now())
    for meetup_id in (long_ago.pk, cancelled.pk, 999_999):
        with pytest.raises(TogetherError, match=re.escape(MESSAGE_GONE)):
            meetup_join(user=member, meetup_id=meetup_id)
    assert not MeetupParticipant.objects.filter(user=member).exists()


def test_only_the_proposer_cancels_and_those_who_joined_are_told_once(settings):
    meetup = MeetupFactory(place="Sloterplas", proposer=UserFactory(full_name="Anna Dijk"))
    going = [UserFactory(full_name="Bert"), UserFactory(full_name="Cor")]
    for member in going:
        meetup_join(user=member, meetup_id=meetup.pk)
    with pytest.raises(TogetherError, match=re.escape(MESSAGE_NOT_YOURS)):
        meetup_cancel(user=going[0], meetup_id=meetup.pk)
    meetup_cancel(user=meetup.proposer, meetup_id=meetup.pk)
    meetup_cancel(user=meetup.proposer, meetup_id=meetup.pk)  # a double tap tells nobody again
    mails = Mail.objects.filter(kind="meetup_cancelled")
    assert sorted(mails.values_list("user_id", flat=True)) == sorted(member.pk for member in going)
    rendered = render_mail(mails.first())
    assert rendered.subject == "Een plonsafspraak gaat niet door"
    assert "Sloterplas" in rendered.text and "Anna Dijk heeft hem geannuleerd" in rendered.text
    assert "/samen" in rendered.html
    with pytest.raises(TogetherError, match=re.escape(MESSAGE_GONE)):
        meetup_join(user=UserFactory(), meetup_id=meetup.pk)


def test_a_member_who_turned_event_mails_off_is_not_mailed():
    from apps.notifications.services import mail_preference_set

    meetup, member = MeetupFactory(), UserFactory()
    meetup_join(user=member, meetup_id=meetup.pk)
    mail_preference_set(user=member, event_mails=False)
    meetup_cancel(user=meetup.proposer, meetup_id=meetup.pk)
    assert not Mail.objects.filter(kind="meetup_cancelled").exists()


# --- the pages -------------------------------------------------------------------------------------


def _messages(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def test_samen_lists_upcoming_afspraken_soonest_first_with_who_goes(client):
    member = UserFactory()
    later = MeetupFactory(place="IJ-haven", starts_at=_soon(48), proposer=UserFactory(full_name="Anna Dijk"))
    sooner = MeetupFactory(place="Sloterplas", starts_at=_soon(2), proposer=UserFactory(full_name="Bert Bos"))
    meetup_join(user=UserFactory(full_name="Cor Kok"), meetup_id=sooner.pk)
    MeetupFactory(place="Geannuleerd meer", cancelled_at=timezone.now())
    MeetupFactory(place="Lang geleden", starts_at=timezone.now() - 2 * HOUR)
    MeetupFactory(place="Net begonnen", starts_at=timezone.now() - datetime.timedelta(minutes=30))
    client.force_login(member)
    html = client.get("/samen").content.decode().split('id="nieuw"')[0]  # the list, not the suggestions
    assert html.index("Sloterplas") < html.index("IJ-haven")
    assert "Gaan mee: Bert Bos, Cor Kok" in html and "Gaan mee: Anna Dijk" in html
    assert "Geannuleerd meer" not in html and "Lang geleden" not in html
    assert "Net begonnen" in html  # on the list until an hour after its time, without buttons
    assert html.count("Ik ga mee") == 2
    assert later.pk


def test_propose_join_leave_and_cancel_through_the_forms(client):
    proposer, other = UserFactory(), UserFactory()
    client.force_login(proposer)
    when = timezone.localtime(_soon(20)).strftime("%Y-%m-%dT%H:%M")
    response = client.post("/samen/nieuw", {"starts_at": when, "place": "Sloterplas", "note": ""})
    assert response.status_code == 302 and response["Location"] == "/samen"
    meetup = Meetup.objects.get()
    assert timezone.localtime(meetup.starts_at).strftime("%Y-%m-%dT%H:%M") == when
    client.force_login(other)
    response = client.post(f"/samen/{meetup.pk}/ik-ga-mee", {"back": "dashboard"})
    assert response["Location"] == "/dashboard#samen" and _messages(response)[-1] == "Je gaat mee!"
    assert meetup.participants.filter(user=other).exists()
    response = client.post(f"/samen/{meetup.pk}/toch-niet", {"back": "https://elders.example"})
    assert response["Location"] == "/samen" and _messages(response)[-1] == "Je gaat niet meer mee."
    client.force_login(proposer)
    response = client.post(f"/samen/{meetup.pk}/annuleren", {"back": "samen"})
    assert Meetup.objects.get().is_cancelled


def test_a_refused_proposal_keeps_what_was_typed_and_says_why(client):
    client.force_login(UserFactory())
    response = client.post("/samen/nieuw", {"starts_at": "gisteren", "place": "Sloterplas", "note": "Thee"})
    assert response.status_code == 400
    html = response.content.decode()
    assert MESSAGE_WHEN_MISSING in html and 'value="Sloterplas"' in html and ">Thee</textarea>" in html
    assert not Meetup.objects.exists()


def test_the_member_s_and_the_club_s_spots_are_suggested(client):
    from tests.factories import DipFactory, UserChallengeFactory

    member = UserFactory()
    DipFactory(user_challenge=UserChallengeFactory(user=member), spot="Mijn steiger")
    MeetupFactory(place="Clubstrand", starts_at=timezone.now() - datetime.timedelta(days=3))
    client.force_login(member)
    html = client.get("/samen").content.decode()
    assert '<option value="Mijn steiger">' in html and '<option value="Clubstrand">' in html


def test_the_dashboard_shows_the_next_afspraken_and_a_new_one_at_once(client):
    member = UserFactory()
    client.force_login(member)
    assert "Er staat nog niets gepland." in client.get("/dashboard").content.decode()
    meetup_propose(user=UserFactory(full_name="Anna Dijk"), starts_at=_soon(3), place="Sloterplas")
    html = client.get("/dashboard").content.decode()  # the cached dashboard moved with the new afspraak
    assert "Wie gaat er plonsen?" in html and "Gaan mee: Anna Dijk" in html


def test_samen_and_the_dashboard_cost_the_same_queries_at_any_size(client, django_assert_max_num_queries):
    member = UserFactory()
    client.force_login(member)

    def load():
        from django.core.cache import caches

        caches["pages"].clear()
        with django_assert_max_num_queries(12):
            client.get("/samen")

    MeetupFactory()
    load()
    for index in range(30):
        meetup = MeetupFactory(starts_at=_soon(index + 1))
        for _ in range(3):
            meetup_join(user=UserFactory(), meetup_id=meetup.pk)
    load()


def test_a_proposer_who_deletes_their_account_tells_those_who_joined_their_open_afspraken(settings):
    from apps.accounts.removal import account_delete, user_delete
    from tests.factories import AdminFactory

    settings.QUIET_HOURS_START = settings.QUIET_HOURS_END = 0  # told at once, whatever the hour of the run
    proposer = UserFactory(full_name="Anna Dijk", password="geheim-wachtwoord-1")
    open_one = MeetupFactory(place="Sloterplas", proposer=proposer)
    going = [UserFactory(full_name="Bert"), UserFactory(full_name="Cor")]
    for member in going:
        meetup_join(user=member, meetup_id=open_one.pk)
    # Her cancelled afspraak was told before, a past one is over: nobody hears of those again.
    cancelled = MeetupFactory(proposer=proposer)
    meetup_join(user=going[0], meetup_id=cancelled.pk)
    meetup_cancel(user=proposer, meetup_id=cancelled.pk)
    past = MeetupFactory(proposer=proposer)
    meetup_join(user=going[1], meetup_id=past.pk)
    Meetup.objects.filter(pk=past.pk).update(starts_at=timezone.now() - HOUR)
    Mail.objects.all().delete()

    account_delete(user=proposer, password="geheim-wachtwoord-1")
    assert not Meetup.objects.filter(proposer_id=proposer.pk).exists()
    mails = Mail.objects.filter(kind="meetup_cancelled")
    assert sorted(mails.values_list("user_id", flat=True)) == sorted(member.pk for member in going)
    assert set(mails.values_list("dedupe_key", flat=True)) == {f"meetup-cancelled:{open_one.pk}:{m.pk}" for m in going}
    # Sent after the afspraak is gone: the mail still says it does not go ahead (without its details).
    rendered = render_mail(mails.first())
    assert "gaat niet door" in rendered.text and "/samen" in rendered.html

    # An admin deleting a proposer tells the same; a member who joined and deletes their own account tells nobody.
    other_proposer = UserFactory()
    second = MeetupFactory(proposer=other_proposer)
    meetup_join(user=going[0], meetup_id=second.pk)
    user_delete(actor=AdminFactory(), user_id=going[1].pk)
    assert Mail.objects.filter(kind="meetup_cancelled", user=going[0]).count() == 1
    user_delete(actor=AdminFactory(), user_id=other_proposer.pk)
    assert Mail.objects.filter(kind="meetup_cancelled", user=going[0]).count() == 2


def test_a_refused_account_deletion_tells_nobody(settings):
    from apps.accounts.removal import AccountDeletionError, account_delete
    from tests.factories import AdminFactory

    settings.QUIET_HOURS_START = settings.QUIET_HOURS_END = 0

    admin = AdminFactory(password="geheim-wachtwoord-1")
    meetup = MeetupFactory(proposer=admin)
    meetup_join(user=UserFactory(), meetup_id=meetup.pk)
    # The club's last admin cannot go: the deletion rolls back, and with it the notice.
    with pytest.raises(AccountDeletionError):
        account_delete(user=admin, password="geheim-wachtwoord-1")
    assert Meetup.objects.filter(pk=meetup.pk).exists()
    assert not Mail.objects.filter(kind="meetup_cancelled").exists()
