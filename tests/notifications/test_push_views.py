"""Meldingen on /account: the subscribe endpoint (JSON), removing a device, the choices per kind."""

import json

import pytest

from apps.notifications import notices
from apps.notifications.models import Channel, NoticePreference, PushSubscription
from apps.notifications.push_views import MESSAGE_CHOICES_SAVED, MESSAGE_DEVICE_REMOVED, MESSAGE_SUBSCRIBED
from apps.notifications.services import MESSAGE_PUSH_NOT_HTTPS, MESSAGE_PUSH_OFF
from tests.factories import PushSubscriptionFactory

pytestmark = pytest.mark.django_db
URL = "/meldingen/abonnement"


def _post(client, body):
    return client.post(URL, json.dumps(body), content_type="application/json")


def test_a_member_subscribes_this_browser(member_client, member, push_receiver):
    browser = push_receiver.subscribe()
    response = _post(member_client, {"subscription": browser.as_json(), "device": "Android (Chrome)"})
    assert response.status_code == 200
    assert response.json()["message"] == MESSAGE_SUBSCRIBED
    saved = PushSubscription.objects.get()
    assert (saved.user, saved.endpoint, saved.device_label) == (member, browser.endpoint, "Android (Chrome)")


@pytest.mark.parametrize(
    "body",
    [
        "geen json",
        [1, 2],
        {"subscription": "x"},
        {"subscription": {"endpoint": "https://push.example.com/x", "keys": {"p256dh": "a", "auth": "b"}}},
    ],
)
def test_a_bad_subscription_gets_a_dutch_400(member_client, push_receiver, body):
    raw = body if isinstance(body, str) else json.dumps(body)
    response = member_client.post(URL, raw, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"].startswith("Dit apparaat")
    assert not PushSubscription.objects.exists()


def test_an_http_endpoint_is_refused(member_client, push_receiver, settings):
    settings.WEBPUSH_ALLOW_INSECURE_LOOPBACK = False
    response = _post(member_client, {"subscription": push_receiver.subscribe().as_json()})
    assert response.status_code == 400 and response.json()["error"] == MESSAGE_PUSH_NOT_HTTPS


def test_without_keys_the_site_says_push_is_off(member_client, settings):
    settings.VAPID_PRIVATE_KEY = ""
    response = _post(member_client, {"subscription": {}})
    assert response.status_code == 409 and response.json()["error"] == MESSAGE_PUSH_OFF


def test_anonymous_gets_401(client):
    assert _post(client, {}).status_code == 401


def test_the_account_page_shows_the_section_devices_and_choices(member_client, member, push_receiver):
    PushSubscriptionFactory(user=member, device_label="iPhone (Safari)")
    html = member_client.get("/account").content.decode()
    assert 'id="meldingen"' in html
    assert "Meldingen op dit apparaat aanzetten" in html
    assert "alleen in de geïnstalleerde app" in html
    assert "iPhone (Safari)" in html
    assert "Clubberichten" in html and "Brrr! op je plons" in html
    assert f'data-push-key="{push_receiver.vapid_public_key}"' in html


def test_removing_a_device(member_client, member):
    device = PushSubscriptionFactory(user=member)
    response = member_client.post(f"/meldingen/apparaat/{device.pk}/verwijderen", follow=True)
    assert MESSAGE_DEVICE_REMOVED in response.content.decode()
    assert not PushSubscription.objects.exists()


def test_another_members_device_stays(member_client, other_member):
    device = PushSubscriptionFactory(user=other_member)
    response = member_client.post(f"/meldingen/apparaat/{device.pk}/verwijderen", follow=True)
    assert "staat niet (meer) in je lijst" in response.content.decode()
    assert PushSubscription.objects.filter(pk=device.pk).exists()
    for bad in ["abc", "9" * 40]:
        assert member_client.post(f"/meldingen/apparaat/{bad}/verwijderen").status_code == 302


def test_choosing_per_kind(member_client, member):
    response = member_client.post(
        "/meldingen/voorkeuren", {"kind_club_message": "mail", "kind_reaction": "off"}, follow=True
    )
    assert MESSAGE_CHOICES_SAVED in response.content.decode()
    assert dict(NoticePreference.objects.filter(user=member).values_list("kind", "channel")) == {
        "club_message": Channel.MAIL,
        "reaction": Channel.OFF,
    }
    html = member_client.get("/account").content.decode()
    assert 'name="kind_club_message" value="mail" checked' in html
    assert notices.channel_for(member, "reaction") == Channel.OFF


def test_a_wrong_choice_changes_nothing(member_client, member):
    response = member_client.post("/meldingen/voorkeuren", {"kind_club_message": "sms"}, follow=True)
    assert "Kies Push, Mail of Uit." in response.content.decode()
    assert not NoticePreference.objects.exists()


def test_deleting_the_account_removes_devices_choices_and_notices(member, other_member):
    from apps.accounts.removal import account_delete
    from apps.notifications.models import ClubMessage, Notice
    from tests.factories import DEFAULT_PASSWORD, ClubMessageFactory, NoticeFactory, NoticePreferenceFactory

    PushSubscriptionFactory(user=member)
    NoticePreferenceFactory(user=member)
    NoticeFactory(user=member)
    written = ClubMessageFactory(author=member)
    kept = PushSubscriptionFactory(user=other_member)
    account_delete(user=member, password=DEFAULT_PASSWORD)
    for model in (PushSubscription, NoticePreference, Notice):
        assert not model.objects.filter(user_id=member.pk).exists()
    assert PushSubscription.objects.filter(pk=kept.pk).exists()
    written.refresh_from_db()
    assert written.author is None and ClubMessage.objects.filter(pk=written.pk).exists()


@pytest.mark.parametrize("devices", [0, 25])
def test_the_meldingen_section_costs_the_same_at_any_number_of_devices(
    member_client, member, devices, django_assert_max_num_queries
):
    for _ in range(devices):
        PushSubscriptionFactory(user=member)
    NoticePreference.objects.create(user=member, kind="reaction", channel="off")
    # The whole page (tests/accounts/test_account_page.py): every section's own queries, Meldingen's included.
    with django_assert_max_num_queries(12):
        response = member_client.get("/account")
    assert response.content.decode().count(">Verwijderen</button>") == devices
