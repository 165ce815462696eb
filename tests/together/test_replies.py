"""Replies under a plonsafspraak and a club event (issue 34 §5): who may write and remove them, the rules of the
text, escaping, the answer beside the form at #reacties, who hears of them (batched, never the writer), the rate
limit, the export, account deletion and the pages' query budgets."""

import datetime
import json

import pytest
from django.contrib.messages import get_messages
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.accounts.removal import user_delete
from apps.notifications.models import Mail, Notice
from apps.together.models import REPLY_MAX_LENGTH, Reply
from apps.together.notices import REPLY_POSTED
from apps.together.refusals import TogetherRefusal
from apps.together.replies import (
    MESSAGE_REPLY_CLOSED,
    MESSAGE_REPLY_DELETED,
    MESSAGE_REPLY_EMPTY,
    MESSAGE_REPLY_NOT_YOURS,
    MESSAGE_REPLY_POSTED,
    MESSAGE_REPLY_TOO_LONG,
    MESSAGE_REPLY_TOO_MANY,
    ReplyError,
    reply_delete,
    reply_post,
)
from apps.together.services import meetup_cancel
from tests.factories import AdminFactory, EventFactory, MeetupFactory, OrganiserFactory, UserFactory

pytestmark = pytest.mark.django_db

SCRIPT = "<script>alert(1)</script>"


@pytest.fixture
def meetup(other_member):
    return MeetupFactory(proposer=other_member, place="Sloterplas")


def _notices(user) -> list:
    return list(Notice.objects.filter(user=user, kind=REPLY_POSTED)) + list(
        Mail.objects.filter(user=user, kind=REPLY_POSTED)
    )


def _said(response) -> list[tuple[str, str]]:
    return [(str(message), message.extra_tags) for message in get_messages(response.wsgi_request)]


# --- writing -----------------------------------------------------------------------------------------------


def test_a_reply_under_an_afspraak_shows_newest_last_with_names_and_time(member_client, member, other_member, meetup):
    reply_post(user=other_member, meetup_id=meetup.pk, text="Neem jij de thermos mee?")
    response = member_client.post(f"/samen/{meetup.pk}/reageren", {"text": "  Ik ben 5 minuten later  "})
    assert response.status_code == 302 and response["Location"] == f"/samen/{meetup.pk}#reacties"
    assert _said(response) == [(MESSAGE_REPLY_POSTED, "replies-section")]

    page = member_client.get(response["Location"]).content.decode()
    first, second = page.index("Neem jij de thermos mee?"), page.index("Ik ben 5 minuten later")
    assert first < second  # newest last
    assert "Otto Ander" in page and "Marit Zwemmer" in page
    assert page.count(MESSAGE_REPLY_POSTED) == 1  # beside the form, not again at the top
    assert page.index('id="reacties"') < page.index(MESSAGE_REPLY_POSTED) < page.index("Plaats reactie")
    local = timezone.localtime(Reply.objects.get(author=member).created_at)
    assert f"{local:%H:%M}" in page
    assert Reply.objects.get(author=member).text == "Ik ben 5 minuten later"


def test_a_reply_under_an_event_stands_on_the_event_page(member_client, member):
    event = EventFactory(title="Nieuwjaarsduik")
    response = member_client.post(f"/events/{event.pk}/reageren", {"text": "Wie rijdt er vanaf Utrecht?"})
    assert response["Location"] == f"/events/{event.pk}#reacties"
    page = member_client.get(response["Location"]).content.decode()
    assert "Wie rijdt er vanaf Utrecht?" in page and page.count(MESSAGE_REPLY_POSTED) == 1
    assert "Plaats reactie" in page and "Bijvoorbeeld: ik ben 5 minuten later" in page


def test_markup_in_a_reply_is_shown_as_text(member_client, member, meetup):
    event = EventFactory()
    for url in (f"/samen/{meetup.pk}", f"/events/{event.pk}"):
        assert member_client.post(f"{url}/reageren", {"text": f"Hoi {SCRIPT}"}).status_code == 302
        page = member_client.get(url).content.decode()
        assert SCRIPT not in page
        assert "Hoi &lt;script&gt;alert(1)&lt;/script&gt;" in page


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", MESSAGE_REPLY_EMPTY),
        ("   \n\t ", MESSAGE_REPLY_EMPTY),
        ("\x00\x01", MESSAGE_REPLY_EMPTY),
        ("x" * (REPLY_MAX_LENGTH + 1), MESSAGE_REPLY_TOO_LONG),
    ],
)
def test_an_empty_or_long_reply_is_refused_in_dutch_and_the_text_comes_back(member_client, meetup, text, message):
    response = member_client.post(f"/samen/{meetup.pk}/reageren", {"text": text})
    assert response.status_code == 302 and response["Location"] == f"/samen/{meetup.pk}#reacties"
    assert _said(response) == [(message, "replies-section")]
    assert not Reply.objects.exists()
    page = member_client.get(response["Location"]).content.decode()
    assert message in page
    if len(text) > REPLY_MAX_LENGTH:
        assert "x" * (REPLY_MAX_LENGTH + 1) in page  # the member can shorten what she wrote


def test_the_text_is_kept_clean(member, meetup):
    reply = reply_post(user=member, meetup_id=meetup.pk, text="Hoi\r\n\r\n\r\n\r\nTot zo\x00!")
    assert reply.text == "Hoi\n\nTot zo!"
    assert len(reply_post(user=member, meetup_id=meetup.pk, text="é" * REPLY_MAX_LENGTH).text) == REPLY_MAX_LENGTH


def test_a_cancelled_afspraak_or_event_takes_no_reply_and_a_missing_one_is_unknown(member, other_member, meetup):
    meetup_cancel(user=other_member, meetup_id=meetup.pk)
    with pytest.raises(ReplyError) as refused:
        reply_post(user=member, meetup_id=meetup.pk, text="Jammer")
    assert refused.value.code == TogetherRefusal.REPLY_CLOSED and str(refused.value) == MESSAGE_REPLY_CLOSED
    cancelled = EventFactory(is_active=False, cancelled_at=timezone.now(), cancel_reason="Storm")
    with pytest.raises(ReplyError):
        reply_post(user=member, event_id=cancelled.pk, text="Jammer")
    hidden = EventFactory(is_active=False)
    for target in ({"meetup_id": 999_999}, {"event_id": 999_999}, {"event_id": hidden.pk}):
        with pytest.raises(ReplyError) as refused:
            reply_post(user=member, text="Hallo", **target)
        assert refused.value.status == 404
    assert not Reply.objects.exists()


def test_the_page_of_a_cancelled_afspraak_shows_the_replies_without_a_form(client, member, other_member, meetup):
    reply_post(user=member, meetup_id=meetup.pk, text="Ik neem koekjes mee")
    meetup_cancel(user=other_member, meetup_id=meetup.pk)
    client.force_login(member)
    page = client.get(f"/samen/{meetup.pk}").content.decode()
    assert "Gaat niet door." in page and "Ik neem koekjes mee" in page
    assert "Plaats reactie" not in page and "Ik ga mee" not in page


def test_the_database_keeps_a_reply_under_exactly_one_thing(member, meetup):
    event = EventFactory()
    for fields in ({"meetup": meetup, "event": event}, {}):
        with pytest.raises(IntegrityError), transaction.atomic():
            Reply.objects.create(author=member, text="Hoi", **fields)
    with pytest.raises(IntegrityError), transaction.atomic():
        Reply.objects.create(author=member, meetup=meetup, text="")


# --- removing ----------------------------------------------------------------------------------------------


def test_the_writer_removes_her_own_reply(member_client, member, meetup):
    reply = reply_post(user=member, meetup_id=meetup.pk, text="Oeps, verkeerde afspraak")
    page = member_client.get(f"/samen/{meetup.pk}").content.decode()
    assert "Verwijder" in page
    response = member_client.post(f"/reacties/{reply.pk}/verwijderen", {"page": f"meetup-{meetup.pk}"})
    assert response["Location"] == f"/samen/{meetup.pk}#reacties"
    assert _said(response) == [(MESSAGE_REPLY_DELETED, "replies-section")]
    assert not Reply.objects.exists()
    # A second tap: gone, said beside the form of the same page.
    again = member_client.post(f"/reacties/{reply.pk}/verwijderen", {"page": f"meetup-{meetup.pk}"})
    assert again["Location"] == f"/samen/{meetup.pk}#reacties"
    assert _said(again)[-1] == ("Deze reactie bestaat niet (meer).", "replies-section")


def test_another_member_cannot_remove_a_reply_and_sees_no_button(client, member, other_member, meetup):
    reply = reply_post(user=member, meetup_id=meetup.pk, text="Van mij")
    client.force_login(other_member)
    assert "Verwijder" not in client.get(f"/samen/{meetup.pk}").content.decode()
    response = client.post(f"/reacties/{reply.pk}/verwijderen", {"page": f"meetup-{meetup.pk}"})
    assert _said(response) == [(MESSAGE_REPLY_NOT_YOURS, "replies-section")]
    assert Reply.objects.filter(pk=reply.pk).exists()
    # A bare admin (the role without a second factor) is a member here.
    with pytest.raises(ReplyError):
        reply_delete(user=AdminFactory(second_factor=False), reply_id=reply.pk)


def test_an_admin_removes_any_reply(client, member, admin_user):
    event = EventFactory()
    reply = reply_post(user=member, event_id=event.pk, text="Iets wat hier niet hoort")
    client.force_login(admin_user)
    assert "Verwijder" in client.get(f"/events/{event.pk}").content.decode()
    response = client.post(f"/reacties/{reply.pk}/verwijderen", {"page": "nonsense"})
    assert response["Location"] == f"/events/{event.pk}#reacties"
    assert not Reply.objects.exists()
    assert "Iets wat hier niet hoort" not in client.get(f"/events/{event.pk}").content.decode()


# --- who hears of it ---------------------------------------------------------------------------------------


def test_the_proposer_hears_of_several_replies_as_one_notice_and_the_writer_never(member, other_member, meetup):
    third = UserFactory(full_name="Fleur Derde")
    reply_post(user=member, meetup_id=meetup.pk, text="Ik ben 5 minuten later")
    reply_post(user=third, meetup_id=meetup.pk, text="Ik neem thee mee")
    reply_post(user=other_member, meetup_id=meetup.pk, text="Top!")  # the proposer herself: nobody hears
    told = _notices(other_member)
    assert len(told) == 1
    notice = told[0]
    assert notice.count == 2 and "Fleur Derde: Ik neem thee mee" in notice.body and "(en 1 meer)" in notice.body
    assert notice.url == f"/samen/{meetup.pk}#reacties"
    assert _notices(member) == [] and _notices(third) == []


def test_the_organisers_and_admins_hear_of_a_reply_under_an_event(member):
    admin, organiser = AdminFactory(), OrganiserFactory()
    event = EventFactory(title="Nieuwjaarsduik")
    reply_post(user=member, event_id=event.pk, text="Is er koffie?")
    reply_post(user=admin, event_id=event.pk, text="Ja, bij de strandtent")
    assert [notice.count for notice in _notices(organiser)] == [2]
    assert [notice.title for notice in _notices(admin)] == ["Nieuwe reactie bij Nieuwjaarsduik"]
    assert _notices(admin)[0].count == 1  # the member's; not her own
    assert _notices(member) == []


def test_a_member_who_chose_uit_hears_nothing(member, other_member, meetup):
    from apps.notifications.services import notice_preferences_set

    notice_preferences_set(user=other_member, choices={REPLY_POSTED: "off"})
    reply_post(user=member, meetup_id=meetup.pk, text="Hoi")
    assert _notices(other_member) == []


# --- the rate limit ----------------------------------------------------------------------------------------


def test_too_many_replies_in_a_short_time_are_refused_in_dutch(member_client, meetup, settings):
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "reply": "3/m/user"}
    for number in range(3):
        said = _said(member_client.post(f"/samen/{meetup.pk}/reageren", {"text": f"Nummer {number}"}))
        assert said[-1] == (MESSAGE_REPLY_POSTED, "replies-section")  # (unread answers pile up without a visit)
    response = member_client.post(f"/samen/{meetup.pk}/reageren", {"text": "Nummer 4"})
    assert _said(response)[-1] == (MESSAGE_REPLY_TOO_MANY, "replies-section")
    assert Reply.objects.count() == 3
    assert "Nummer 4" in member_client.get(response["Location"]).content.decode()  # back in the form


# --- the export and account deletion -----------------------------------------------------------------------


def test_replies_are_in_the_writers_export(member_client, member, other_member, meetup):
    from tests.logbook.test_export import download

    event = EventFactory(title="Nieuwjaarsduik")
    reply_post(user=member, meetup_id=meetup.pk, text="Ik ben er om 7:25")
    reply_post(user=member, event_id=event.pk, text="Ik neem een vriendin mee")
    reply_post(user=other_member, meetup_id=meetup.pk, text="Niet van mij")
    rows = json.loads(download(member_client).read("reacties.json"))
    assert [row["tekst"] for row in rows] == ["Ik ben er om 7:25", "Ik neem een vriendin mee"]
    assert rows[0]["bij"].startswith("plonsafspraak: Sloterplas") and rows[1]["bij"] == "event: Nieuwjaarsduik"
    assert all(row["geschreven_op"] for row in rows)


def test_replies_go_with_the_account_and_leave_the_pages(client, member, other_member, admin_user, meetup):
    reply_post(user=member, meetup_id=meetup.pk, text="Van Marit")
    client.force_login(other_member)
    assert "Van Marit" in client.get(f"/samen/{meetup.pk}").content.decode()  # now in the page cache
    user_delete(actor=admin_user, user_id=member.pk)
    assert not Reply.objects.exists()
    assert "Van Marit" not in client.get(f"/samen/{meetup.pk}").content.decode()


# --- the pages ---------------------------------------------------------------------------------------------


def test_an_unknown_afspraak_is_a_404(member_client):
    assert member_client.get("/samen/999999").status_code == 404


def test_the_samen_list_links_to_each_afspraak(member_client, meetup):
    assert f'href="/samen/{meetup.pk}"' in member_client.get("/samen").content.decode()


def test_going_along_from_the_afspraak_page_lands_back_there(member_client, member, meetup):
    assert "Ik ga mee" in member_client.get(f"/samen/{meetup.pk}").content.decode()
    response = member_client.post(f"/samen/{meetup.pk}/ik-ga-mee", {"back": "meetup"})
    assert response["Location"] == f"/samen/{meetup.pk}"
    page = member_client.get(response["Location"]).content.decode()
    assert page.count("Je gaat mee!") == 1 and "Toch niet" in page


def _queries(client, url: str) -> int:
    from django.core.cache import caches

    caches["pages"].clear()
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


@pytest.mark.parametrize("kind", ["meetup", "event"])
def test_the_pages_cost_the_same_queries_with_2_and_40_replies(client, member, meetup, kind):
    event = EventFactory()
    url = f"/samen/{meetup.pk}" if kind == "meetup" else f"/events/{event.pk}"
    target = {"meetup_id": meetup.pk} if kind == "meetup" else {"event_id": event.pk}
    writers = [UserFactory() for _ in range(5)]
    client.force_login(member)
    counts = []
    for size in (2, 40):
        while Reply.objects.count() < size:
            reply_post(user=writers[Reply.objects.count() % 5], text="Ik kom ook", **target)
        counts.append(_queries(client, url))
    assert counts[0] == counts[1] and counts[0] <= 12, counts


def test_the_event_page_is_fresh_after_a_reply(client, member, other_member):
    event = EventFactory()
    client.force_login(other_member)
    assert "Nog geen reacties." in client.get(f"/events/{event.pk}").content.decode()
    reply_post(user=member, event_id=event.pk, text="Eerste!")
    assert "Eerste!" in client.get(f"/events/{event.pk}").content.decode()


def test_old_replies_stay_readable_on_a_past_afspraak(member_client, member):
    past = MeetupFactory(starts_at=timezone.now() - datetime.timedelta(days=2))
    reply_post(user=member, meetup_id=past.pk, text="Was heerlijk")
    page = member_client.get(f"/samen/{past.pk}").content.decode()
    assert "Was heerlijk" in page and "Ik ga mee" not in page


def test_a_new_name_shows_on_the_replies_at_once(client, member, other_member, meetup):
    from apps.accounts.services import account_profile_update

    reply_post(user=member, meetup_id=meetup.pk, text="Ik kom ook")
    client.force_login(other_member)
    assert "Marit Zwemmer" in client.get(f"/samen/{meetup.pk}").content.decode()  # now in the page cache
    account_profile_update(user=member, full_name="Marit Nieuw", email=member.email, newsletter_consent=False)
    page = client.get(f"/samen/{meetup.pk}").content.decode()
    assert "Marit Nieuw" in page and "Marit Zwemmer" not in page
