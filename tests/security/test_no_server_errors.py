"""Never a 500: hostile values (NUL, unicode digits, huge numbers, very long text, odd JSON) in every field of
every form and JSON write, as each role that may reach it. A JSON endpoint answers JSON, whatever came in.

`WRITES` declares each endpoint of ours that takes input, with its fields; a test checks that list against
the URL conf, so a new write (or a new page) must be added here, or to `NO_INPUT` with the reason. Django's
own admin is walked on its own: every add form, with hostile values in each of its fields.

Each example runs in a savepoint that is rolled back, so one example's write does not change the next one's
world (a deleted account, a stopped card). Runtime stays bounded: few examples per endpoint, no deadline;
CI runs them derandomised (the "ci" profile in tests/conftest.py).
"""

import datetime
import json
from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest
from django.contrib import admin
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .conftest import World

pytestmark = pytest.mark.django_db

EXAMPLES = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)

# --- hostile values -----------------------------------------------------------------------------------

KNOWN_BAD = [
    "",
    " ",
    "\x00",
    "a\x00b",
    "²",
    "³:²⁰",
    "٣٠٠",
    "１２",
    "9" * 5_000,
    "-1",
    "0",
    str(2**63),
    str(2**64),
    "1e400",
    "1E-999999999",
    "NaN",
    "sNaN",
    "-Infinity",
    "ß" * 20,
    "ﬃ" * 60,
    "x" * 10_000,
    "' OR 1=1 --",
    "<script>alert(1)</script>",
    'Jan;"=1+1";x',
    "2026-13-45",
    "2026-11-21T07:00:00",
    "2026-11-21T07:00:00+99:00",
    "1:99",
    "60:01",
    "\r\nBcc: x@example.nl",
    "6f1f7c1e-2b7d-4c51-9a53-1f0b8a8e0c11",
]
TEXT = st.one_of(
    st.sampled_from(KNOWN_BAD),
    st.text(max_size=60),
    st.integers().map(str),
    st.text(alphabet="0123456789²³¹٣١०０１:.,-+eE \x00", max_size=30),
)
FORM_VALUE = TEXT | st.lists(TEXT, min_size=2, max_size=3)  # a field sent twice
JSON_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)


@st.composite
def json_body(draw, keys: tuple[str, ...]) -> bytes:
    """The endpoint's own keys with odd values, any JSON at all, or bytes that are not JSON."""
    kind = draw(st.sampled_from(["keys", "any", "raw"]))
    if kind == "keys":
        return json.dumps(draw(st.dictionaries(st.sampled_from(keys), JSON_VALUE, min_size=1))).encode()
    if kind == "any":
        return json.dumps(draw(JSON_VALUE)).encode()
    return draw(st.binary(max_size=60) | st.sampled_from([b"{", b'{"email": "\xff"}', b"\xef\xbb\xbf{}"]))


# A passkey answer: shaped like the browser's (with hostile values), any JSON, or not JSON at all.
CREDENTIAL = st.one_of(
    st.builds(
        lambda values: json.dumps(
            {"id": values[0], "rawId": values[1], "type": values[2], "response": {"clientDataJSON": values[3]}}
        ),
        st.tuples(JSON_VALUE, JSON_VALUE, JSON_VALUE, JSON_VALUE),
    ),
    JSON_VALUE.map(json.dumps),
    TEXT,
)


# --- the declared writes ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Write:
    """One endpoint that takes input: who may post, the fields of its form or the keys of its JSON body."""

    name: str
    roles: tuple[str, ...]
    fields: tuple[str, ...] = ()
    json_keys: tuple[str, ...] = ()  # a JSON endpoint: the body is JSON, the answer must be JSON
    answers_json: bool = False  # a form-encoded endpoint of an island, which answers JSON
    method: str = "post"
    kwargs: dict = field(default_factory=dict)  # URL arguments: names of World attributes, or literals
    credential: bool = False  # the form has allauth's passkey field


NOTICE_KINDS = ("club_message", "event_changed", "reaction", "dip_nudge")
CONDITIONS = ("water_temperature", "duration_seconds", "spot", "note")
MEMBER_ROLES = ("anonymous", "member", "admin")

WRITES = [
    Write("auth", ("anonymous",), ("form", "login", "password", "code", "full_name", "email", "newsletter_consent")),
    Write("mfa_authenticate", ("anonymous",), ("code",), credential=True),
    Write("mfa_login_webauthn", ("anonymous",), credential=True),
    Write("account_reset_password", ("anonymous", "member"), ("email",)),
    Write(
        "account_reset_password_from_key",
        ("anonymous",),
        ("password1", "password2"),
        kwargs={"uidb36": "1", "key": "set-password"},
    ),
    Write("account_logout", MEMBER_ROLES),
    Write("logout", MEMBER_ROLES),
    Write("account_profile", MEMBER_ROLES, ("profiel-full_name", "profiel-email", "profiel-newsletter_consent")),
    Write("account_password", MEMBER_ROLES, ("wachtwoord-current_password", "wachtwoord-new_password")),
    Write("account_delete", MEMBER_ROLES, ("verwijderen-password",)),
    Write("account_reauthenticate", MEMBER_ROLES, ("password", "next")),
    Write("mfa_reauthenticate_webauthn", MEMBER_ROLES, ("next",), credential=True),
    Write("account_confirm_email", ("anonymous", "member"), kwargs={"key": "bad-key"}),
    Write("account_export", MEMBER_ROLES),
    Write("account_export_file", MEMBER_ROLES, method="get", kwargs={"token": "bad-token"}),
    Write("mfa_activate_totp", MEMBER_ROLES, ("code",)),
    Write("mfa_deactivate_totp", MEMBER_ROLES, ("code",)),
    Write("mfa_generate_recovery_codes", MEMBER_ROLES),
    Write("mfa_add_webauthn", MEMBER_ROLES, ("name", "passwordless"), credential=True),
    Write("mfa_edit_webauthn", MEMBER_ROLES, ("name",), kwargs={"pk": 1}),
    Write("mfa_remove_webauthn", MEMBER_ROLES, kwargs={"pk": 1}),
    Write("challenge_start", MEMBER_ROLES, ("challenge_id",)),
    Write(
        "dip_register",
        MEMBER_ROLES,
        ("request_id", "tapped_at", "user_challenge_id", "share_photo", *CONDITIONS),
        ("request_id", "tapped_at", "user_challenge_id", "buddies", *CONDITIONS),
        answers_json=True,
    ),
    Write(
        "dip_update",
        MEMBER_ROLES,
        (*CONDITIONS, "share_photo", "photo_after_tap"),
        answers_json=True,
        kwargs={"dip_id": "member_plain_dip"},
    ),
    Write("dip_undo", MEMBER_ROLES, answers_json=True, kwargs={"dip_id": "member_plain_dip"}),
    Write("challenge_stop", MEMBER_ROLES, ("user_challenge_id",)),
    Write("postal_address", MEMBER_ROLES, ("recipient", "street", "postcode", "city", "country", "verwijderen")),
    Write("event_join", MEMBER_ROLES, kwargs={"event_id": "event"}),
    Write("event_leave", MEMBER_ROLES, kwargs={"event_id": "event"}),
    Write("event_offer_accept", MEMBER_ROLES, kwargs={"event_id": "event"}),
    Write("event_offer_decline", MEMBER_ROLES, kwargs={"event_id": "event"}),
    Write(
        "event_guest_sign_up",
        ("anonymous", "member"),
        ("name", "email", "safety_agreed"),
        kwargs={"token": lambda world: _guest_event().guest_token},
    ),
    Write("event_guest_cancel", ("anonymous",), kwargs={"token": lambda world: _guest_cancel_token()}),
    Write("event_guest_confirm", ("anonymous",), kwargs={"token": lambda world: _guest_confirm_token()}),
    Write("calendar_renew", MEMBER_ROLES),
    Write("mail_unsubscribe", ("anonymous",), kwargs={"token": "bad-token"}),
    Write("mail_preferences", MEMBER_ROLES, ("event_mails", "dip_nudge")),
    Write("notice_subscribe", MEMBER_ROLES, json_keys=("subscription", "device")),
    Write("notice_device_delete", MEMBER_ROLES, kwargs={"subscription_id": "12345"}),
    Write("notice_preferences", MEMBER_ROLES, tuple(f"kind_{kind}" for kind in NOTICE_KINDS)),
    Write("adminpanel_club_message", ("member", "admin"), ("title", "body")),
    Write("adminpanel_audit_log", ("admin",), ("actie", "wie", "voor"), method="get"),
    Write("club", MEMBER_ROLES, ("na",), method="get"),
    Write("club_sharing", MEMBER_ROLES, ("share_dips", "back", "brrr_mails_shown", "brrr_mails")),
    Write("club_brrr", MEMBER_ROLES, ("item", "given", "na")),
    Write("club_hide", MEMBER_ROLES, ("item", "na")),
    Write("meetup_propose", MEMBER_ROLES, ("starts_at", "place", "note")),
    Write("meetup_join", MEMBER_ROLES, kwargs={"meetup_id": "meetup"}),
    Write("meetup_reply", MEMBER_ROLES, ("text",), kwargs={"meetup_id": "meetup"}),
    Write("event_reply", MEMBER_ROLES, ("text",), kwargs={"event_id": "event"}),
    Write("reply_delete", MEMBER_ROLES, ("page",), kwargs={"reply_id": "reply"}),
    Write("event_series_join", MEMBER_ROLES, ("back", "event"), kwargs={"series_id": 1}),
    Write("event_series_leave", MEMBER_ROLES, ("back", "event"), kwargs={"series_id": 1}),
    Write("meetup_leave", MEMBER_ROLES, kwargs={"meetup_id": "meetup"}),
    Write("meetup_cancel", MEMBER_ROLES, kwargs={"meetup_id": "meetup"}),
    Write("buddy_accept", MEMBER_ROLES, kwargs={"tag_id": "buddy_tag"}),
    Write("buddy_decline", MEMBER_ROLES, kwargs={"tag_id": "buddy_tag"}),
    Write("tagging_setting", MEMBER_ROLES, ("tagging_allowed",)),
    Write("briefing_read", MEMBER_ROLES, answers_json=True),
    Write(
        "adminpanel_physical_mark",
        ("member", "admin"),
        ("award", "physical_status", "datum", "filter_status", "filter_badge"),
    ),
    Write("adminpanel_physical", ("admin",), ("status", "badge", "na"), method="get"),
    Write("club_challenge_join", MEMBER_ROLES, ("club_challenge_id", "next")),
    Write("club_challenge_leave", MEMBER_ROLES, ("club_challenge_id", "next")),
    Write("club_dip_register", MEMBER_ROLES, ("next",)),
    Write("club_dip_undo", MEMBER_ROLES, ("dip_id", "next")),
    Write(
        "adminpanel_club_challenges",
        ("member", "admin"),
        ("name", "description", "starts_on", "ends_on", "kind", "target"),
    ),
    Write("adminpanel_club_challenge_delete", ("member", "admin"), ("club_challenge_id",)),
    Write("adminpanel_events", ("admin",), ("periode", "pagina"), method="get"),
    Write(
        "adminpanel_event_new",
        ("member", "admin"),
        ("title", "date", "time", "location", "description", "max_participants", "guest_limit", "repeat_until"),
    ),
    Write(
        "adminpanel_event_edit",
        ("member", "admin"),
        ("title", "date", "time", "location", "description", "max_participants", "guest_limit", "scope"),
        kwargs={"event_id": "event"},
    ),
    Write("adminpanel_event_cancel", ("member", "admin"), ("reason", "scope"), kwargs={"event_id": "event"}),
    Write("adminpanel_event_attendance", ("member", "admin"), ("aanwezig", "lid"), kwargs={"event_id": "event"}),
    Write("adminpanel_event_guests_invite", ("member", "admin"), ("gast",), kwargs={"event_id": "event"}),
    Write("adminpanel_photos", ("admin",), ("cursor", "sort", "q"), method="get", answers_json=True),
    Write("adminpanel_users", ("admin",), ("cursor", "sort", "q"), method="get", answers_json=True),
    Write("adminpanel_invitations", ("admin",), ("cursor", "sort", "q"), method="get", answers_json=True),
    Write("adminpanel_user_delete", ("member", "admin"), answers_json=True, kwargs={"user_id": "other_member"}),
    # Aan de waterkant: the phone's JSON (the world's event is not today: a tap is refused, in Dutch).
    Write(
        "event_waterkant_tap",
        ("member", "admin"),
        json_keys=("swimmer", "kind", "tapped_at", "first_name"),
        kwargs={"event_id": "event"},
    ),
    Write("event_waterkant_member", ("member", "admin"), json_keys=("name",), kwargs={"event_id": "event"}),
    Write("event_waterkant_close", ("member", "admin"), answers_json=True, kwargs={"event_id": "event"}),
    Write("event_waterkant_state", ("member", "admin"), method="get", answers_json=True, kwargs={"event_id": "event"}),
    Write(
        "adminpanel_user_organiser", ("member", "admin"), json_keys=("organiser",), kwargs={"user_id": "other_member"}
    ),
    Write("adminpanel_invitation_create", ("member", "admin"), json_keys=("email",)),
    Write("adminpanel_invitation_bulk", ("member", "admin"), json_keys=("text",)),
    Write(
        "adminpanel_invitation_delete", ("member", "admin"), answers_json=True, kwargs={"invitation_id": "invitation"}
    ),
    Write(
        "adminpanel_invitation_resend", ("member", "admin"), answers_json=True, kwargs={"invitation_id": "invitation"}
    ),
]


def _guest_event():
    from django.utils import timezone

    from apps.events.models import Event

    event, _ = Event.objects.get_or_create(
        title="Gastenduik",
        defaults={"event_date": timezone.now() + datetime.timedelta(days=5), "open_for_guests": True},
    )
    return event


def _guest_cancel_token() -> str:
    from django.utils import timezone

    from apps.events.models import EventGuest
    from apps.events.notices import guest_cancel_token

    guest, _ = EventGuest.objects.get_or_create(
        event=_guest_event(), email="gast@example.nl", defaults={"name": "Gijs", "safety_agreed_at": timezone.now()}
    )
    return guest_cancel_token(guest)


def _guest_confirm_token() -> str:
    from django.utils import timezone

    from apps.events.models import EventGuest
    from apps.events.notices import guest_confirm_token

    guest, _ = EventGuest.objects.get_or_create(
        event=_guest_event(),
        email="bevestig@example.nl",
        defaults={
            "name": "Bea",
            "safety_agreed_at": timezone.now(),
            "confirm_by": timezone.now() + datetime.timedelta(minutes=30),
        },
    )
    return guest_confirm_token(guest)


# Our URL names that take no input worth fuzzing (pages read with GET alone, files, redirects).
NO_INPUT = {
    "landing",
    "healthz",
    "operations_status",  # reads only the Authorization header (tests/operations/test_alerts_and_endpoint.py)
    "privacy",
    "favicon",
    "service_worker",
    "offline",
    "account_reset_password_done",
    "account_reset_password_from_key_done",
    "account_login",  # a redirect to /auth
    "account_signup",  # a redirect to /auth (sign-up is ours, on /auth)
    "account",
    "mfa_index",
    "mfa_view_recovery_codes",
    "mfa_download_recovery_codes",
    "mfa_list_webauthn",
    "dashboard",
    "challenge",
    "dip_photo",
    "dip_thumbnail",
    "club_photo",
    "club_thumbnail",
    "club_badge_share",
    "badge_art",
    "events",
    "meetup",  # one afspraak's page (/samen/<id>)
    "event_waterkant",  # the shore list's page; its island writes through the JSON above
    "event_ics",
    "calendar_feed",
    "adminpanel",
    "adminpanel_newsletter_export",
    "adminpanel_newsletter_xlsx",
    "adminpanel_users_xlsx",
    "adminpanel_to_send_xlsx",
    "adminpanel_to_send_csv",
    "adminpanel_event",
    "adminpanel_event_lists_csv",
    "adminpanel_event_lists_xlsx",
    "event",
    "statistics",
    "account_export_download",
    "together",
    "veilig",
    "buddy_candidates",  # a GET of the member's own clubmates list, no parameters
}


def our_url_names() -> set[str]:
    """Every named URL outside Django's own admin (walked by its own test below)."""
    names: set[str] = set()

    def walk(patterns, prefix: str) -> None:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern) and pattern.name and not prefix.startswith("django-admin/"):
                names.add(pattern.name)

    walk(get_resolver().url_patterns, "")
    return names


def test_every_url_is_declared_as_a_write_or_as_taking_no_input():
    declared = {write.name for write in WRITES}
    assert not declared & NO_INPUT
    assert our_url_names() == declared | NO_INPUT


# --- the requests -------------------------------------------------------------------------------------


def url_of(write: Write, world: World) -> str:
    kwargs = {
        key: value(world)
        if callable(value)
        else getattr(world, value).pk
        if isinstance(value, str) and hasattr(world, value)
        else value
        for key, value in write.kwargs.items()
    }
    return reverse(write.name, kwargs=kwargs)


def assert_clear_answer(response, write: Write) -> None:
    assert response.status_code < 500, (write.name, response.status_code, response.content[:500])
    if write.json_keys or (write.answers_json and response.status_code != 302):
        assert response["Content-Type"] == "application/json", (write.name, response.status_code)
        body = response.json()
        assert response.status_code < 400 or body.get("error"), body


def send(client: Client, write: Write, url: str, data: dict | bytes):
    """One request in a savepoint that is rolled back: the next example sees the same world."""
    with transaction.atomic():
        if write.method == "get":
            response = client.get(url, data, HTTP_ACCEPT="application/json")
        elif isinstance(data, bytes):
            response = client.post(url, data, content_type="application/json", HTTP_ACCEPT="application/json")
        else:
            response = client.post(url, data)
        transaction.set_rollback(True)
    return response


@pytest.mark.parametrize("write", WRITES, ids=[write.name for write in WRITES])
@EXAMPLES
@given(data=st.data())
def test_no_input_makes_a_server_error(world: World, write: Write, data):
    role = data.draw(st.sampled_from(write.roles), label="role")
    client = world.client(role)
    if write.json_keys:
        payload = data.draw(json_body(write.json_keys), label="body")
    else:
        fields = st.dictionaries(st.sampled_from(write.fields), FORM_VALUE) if write.fields else st.just({})
        payload = data.draw(fields, label="fields")
        if write.credential:
            payload["credential"] = data.draw(CREDENTIAL, label="credential")
    assert_clear_answer(send(client, write, url_of(write, world), payload), write)


@pytest.mark.parametrize("write", WRITES, ids=[write.name for write in WRITES])
def test_each_known_bad_value_in_each_field_is_a_clear_answer(world: World, write: Write):
    """The sweep the random examples may miss: every known bad value in each field on its own (so that no
    other field is refused first), as the role that gets furthest: an admin on /admin, else a member."""
    role = "admin" if write.name.startswith("adminpanel") else "member" if "member" in write.roles else "anonymous"
    client = world.client(role)
    names = write.json_keys or (*write.fields, *(("credential",) if write.credential else ())) or ("",)
    for name in names:
        for value in KNOWN_BAD:
            if write.json_keys:
                payload = json.dumps({name: value}).encode()
            else:
                payload = {name: value} if name else {}
            assert_clear_answer(send(client, write, url_of(write, world), payload), write)


# --- Django's own admin: every add form ---------------------------------------------------------------


def admin_add_forms() -> list[tuple[str, str]]:
    return [
        (f"admin:{model._meta.app_label}_{model._meta.model_name}_add", model._meta.label)
        for model in admin.site._registry
    ]


@pytest.mark.parametrize(("url_name", "label"), admin_add_forms(), ids=[label for _name, label in admin_add_forms()])
@EXAMPLES
@given(data=st.data())
def test_no_input_makes_a_server_error_in_the_django_admin(world: World, url_name, label, data):
    client = world.client("admin")
    url = reverse(url_name)
    form = client.get(url).context
    model_admin = form["adminform"].model_admin if form and "adminform" in form else None
    fields = tuple(form["adminform"].form.fields if model_admin else ())
    if not fields:
        return  # adding is turned off for this model (no add page)
    payload = data.draw(st.dictionaries(st.sampled_from(fields), FORM_VALUE), label="fields")
    with transaction.atomic():
        response = client.post(url, payload)
        transaction.set_rollback(True)
    assert response.status_code < 500, (label, payload)


def autocomplete_add_forms() -> list[tuple[str, str]]:
    """Every autocomplete field on an add form (the models that are only read here have none to draw)."""
    return [
        (f"admin:{model._meta.app_label}_{model._meta.model_name}_add", field)
        for model, model_admin in admin.site._registry.items()
        for field in model_admin.autocomplete_fields
        if model_admin.has_add_permission(SimpleNamespace(user=SimpleNamespace(has_perm=lambda perm: True)))
    ]


@pytest.mark.parametrize(("url_name", "field"), autocomplete_add_forms())
@pytest.mark.parametrize("value", [" ", "²", "x" * 300, "1\x00"])
def test_a_bad_id_in_an_autocomplete_field_of_the_django_admin_is_a_form_error(world: World, url_name, field, value):
    """Django's autocomplete widget looks the chosen id up while it draws the form again: an id the field cannot
    read is a form error, never a 500 (apps/core/admin_widgets.py)."""
    response = world.client("admin").post(reverse(url_name), {field: value})
    assert response.status_code == 200
    assert response.context["adminform"].form.errors
