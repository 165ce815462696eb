"""/admin/clubbericht/: an admin writes a club message; the worker tells every member the way they chose."""

import pytest
from django.utils import timezone

from apps.notifications.models import Channel, ClubMessage, Mail, Notice
from apps.notifications.services import club_message_fan_out_run, notice_preferences_set, push_subscription_save
from tests.factories import ClubMessageFactory, UserFactory
from tests.mailbox import run_worker

pytestmark = pytest.mark.django_db
URL = "/admin/clubbericht/"


@pytest.fixture(autouse=True)
def _no_quiet_hours(settings):
    settings.QUIET_HOURS_START = settings.QUIET_HOURS_END = 0


def _club(push_receiver):
    """Two members with a device, one by mail, one who turned club messages off (plus the test's own users)."""
    pushed = UserFactory.create_batch(2)
    browsers = []
    for user in pushed:
        browser = push_receiver.subscribe()
        push_subscription_save(user=user, subscription=browser.as_json())
        browsers.append(browser)
    by_mail = UserFactory()
    off = UserFactory()
    notice_preferences_set(user=off, choices={"club_message": Channel.OFF})
    return pushed, browsers, by_mail, off


def test_the_page_previews_how_many_get_it_by_push_and_by_mail(admin_client, admin_user, push_receiver):
    _club(push_receiver)
    html = admin_client.get(URL).content.decode()
    # push: 2; mail: the member without a device and the admin; the one who chose Uit gets nothing.
    assert "<strong>2</strong> leden per push, <strong>2</strong> per e-mail." in html
    assert ">Versturen</button>" in html and "Titel" in html and "Bericht" in html


def test_sending_reaches_devices_mail_and_the_dashboard(admin_client, push_receiver, smtp_server, client):
    pushed, browsers, by_mail, off = _club(push_receiver)
    response = admin_client.post(URL, {"title": "Zondag zwemmen", "body": "Om 10:00 bij de pier."}, follow=True)
    assert "Je clubbericht is verstuurd: 2 per push en 2 per e-mail." in response.content.decode()
    assert push_receiver.received == []  # the request only queued it
    run_worker()

    for browser in browsers:
        [payload] = push_receiver.for_endpoint(browser.endpoint)
        assert payload["title"] == "Clubbericht: Zondag zwemmen"
        assert payload["body"] == "Om 10:00 bij de pier."
        assert payload["url"] == "/dashboard#clubberichten"
    assert sorted(m["To"] for m in smtp_server.messages) == sorted([by_mail.email, response.wsgi_request.user.email])
    assert off.email not in [m["To"] for m in smtp_server.messages]

    client.force_login(by_mail)
    dashboard = client.get("/dashboard").content.decode()
    assert "Clubberichten" in dashboard and "Zondag zwemmen" in dashboard


def test_the_fan_out_twice_tells_nobody_twice(push_receiver, smtp_server):
    _club(push_receiver)
    message = ClubMessageFactory()
    club_message_fan_out_run(message_id=message.pk)
    club_message_fan_out_run(message_id=message.pk)
    assert Notice.objects.count() == 2
    assert Mail.objects.filter(kind="club_message").count() == 1
    run_worker()
    assert len(push_receiver.received) == 2


def test_in_quiet_hours_everyone_waits_until_morning(push_receiver, settings):
    local = timezone.localtime()
    settings.QUIET_HOURS_START, settings.QUIET_HOURS_END = local.hour, (local.hour + 2) % 24
    _club(push_receiver)
    club_message_fan_out_run(message_id=ClubMessageFactory().pk)
    assert Notice.objects.count() == 3  # the two with a device and the one by mail: decided when it goes
    assert not Mail.objects.exists()
    run_worker()
    assert push_receiver.received == []


@pytest.mark.parametrize(
    ("data", "error"),
    [({"title": "", "body": "x"}, "Dit veld is verplicht."), ({"title": "x" * 121, "body": "x"}, "121")],
)
def test_a_bad_form_says_why_and_sends_nothing(admin_client, data, error):
    response = admin_client.post(URL, data)
    assert response.status_code == 400
    assert error in response.content.decode()
    assert not ClubMessage.objects.exists()


def test_members_are_refused(member_client):
    response = member_client.post(URL, {"title": "Hack", "body": "x"})
    assert response.status_code == 302 and response["Location"] == "/dashboard"
    assert not ClubMessage.objects.exists()


def test_an_admin_without_second_factor_is_sent_to_set_one_up(bare_admin_client):
    response = bare_admin_client.post(URL, {"title": "Hack", "body": "x"})
    assert response.status_code == 302 and response["Location"] == "/account#tweede-factor"
    assert not ClubMessage.objects.exists()


def test_the_preview_costs_a_fixed_number_of_queries(admin_client, django_assert_max_num_queries):
    UserFactory.create_batch(3)
    with django_assert_max_num_queries(12):
        admin_client.get(URL)
    UserFactory.create_batch(30)
    with django_assert_max_num_queries(12):
        admin_client.get(URL)
