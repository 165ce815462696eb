"""The cached member pages (apps/core/page_cache.py): served from the cache, and never stale after a
service changed what they show; per-request parts (CSRF token, messages) never come from the cache."""

import re
from decimal import Decimal

import pytest
from allauth.mfa.totp.internal.auth import TOTP
from django.core.cache import cache, caches

from apps.accounts.removal import user_delete
from apps.accounts.services import account_profile_update, admin_grant
from apps.challenges.conditions import DipConditions
from apps.challenges.models import Challenge, UserBadge
from apps.challenges.services.cards import challenge_start, challenge_stop
from apps.challenges.services.catalogue import challenge_save
from apps.challenges.services.dip_changes import dip_delete, dip_details_update, dip_undo
from apps.challenges.services.dips import dip_register
from apps.core.page_cache import CATALOGUE, csrf_placeholder, pages_changed, release
from apps.core.page_versions import shared_versions
from apps.events.selectors import seconds_until_first_starts, upcoming_events_for
from apps.events.services import event_leave, event_sign_up, events_deactivate
from apps.shipping.services import physical_badges_mark, postal_address_save
from config.settings.caches import cache_settings
from tests.factories import TOTP_SECRET, AdminFactory, EventFactory, UserFactory
from tests.redis_states import caches_in_state

pytestmark = pytest.mark.django_db
CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
TOKENS = re.compile(r'(?<=value=")[A-Za-z0-9]{64}(?=")|(?<=<meta name="csrf-token" content=")[A-Za-z0-9]{64}(?=")')


# The Systeemstatus card on /admin is filled in on every request (apps/adminpanel/views/page.py), never cached:
# it shows the clock and the machinery, so two renderings a minute apart differ by design.
LIVE_SECTIONS = re.compile(r'<section class="card status-card".*?</section>', re.S)


def without_tokens(html: str) -> str:
    return LIVE_SECTIONS.sub("", TOKENS.sub("", html))


REDIS_STATES = {"redis": "up", "redis-down": "down", "redis-hung": "hung"}
OUTAGES = ("redis-down", "redis-hung")


@pytest.fixture(autouse=True, params=["locmem", "database", *REDIS_STATES])
def page_cache_backend(request, settings):
    """Every test here runs on the local-memory cache, on the database cache (production without
    `REDIS_URL`), and with `REDIS_URL` set (tests/redis_states.py): Redis up (CI starts one), down and
    hung, where every page is rendered and none fails."""
    if request.param == "database":
        settings.CACHES = cache_settings("")
    if request.param in REDIS_STATES:
        with caches_in_state(settings, REDIS_STATES[request.param]):
            yield request.param
        return
    cache.clear()
    yield request.param


def served_from_the_cache(backend: str) -> None:
    if backend in OUTAGES:
        pytest.skip("nothing is served from a Redis that is down or hung")


@pytest.fixture
def waterdieren():
    return Challenge.objects.get(category=Challenge.Category.WATERDIEREN)


@pytest.fixture
def card(member, waterdieren):
    return challenge_start(user=member, challenge_id=waterdieren.pk)


def page(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200
    html = response.content.decode()
    assert csrf_placeholder() not in html
    return html


def cache_lookups(backend: str) -> int:
    """The database cache reads the versions and the page with one query; the others with none."""
    return 1 if backend == "database" else 0


def cache_calls(monkeypatch) -> list[str]:
    """The calls made on the pages' cache from now on, by method (not those a backend makes of its own calls:
    the local-memory cache's get_many is a get per key)."""
    pages, calls, inside = caches["pages"], [], []

    def counted(method: str, real):
        def call(*args, **kwargs):
            if not inside:
                calls.append(method)
            inside.append(method)
            try:
                return real(*args, **kwargs)
            finally:
                inside.pop()

        return call

    for method in ("get", "get_many", "add", "set", "set_many", "set_many_each"):
        if hasattr(pages, method):
            monkeypatch.setattr(pages, method, counted(method, getattr(pages, method)))
    return calls


def test_a_second_visit_is_served_from_the_cache_with_two_queries(
    member_client, card, django_assert_max_num_queries, page_cache_backend
):
    served_from_the_cache(page_cache_backend)
    dip_register(user=card.user)
    first = page(member_client, "/dashboard")
    # The session and the member (and the cache's own look-ups): nothing of the page itself.
    with django_assert_max_num_queries(2 + cache_lookups(page_cache_backend)):
        second = page(member_client, "/dashboard")
    assert without_tokens(second) == without_tokens(first)  # the same page, each with its own token
    page(member_client, "/challenge")
    with django_assert_max_num_queries(2 + cache_lookups(page_cache_backend)):
        page(member_client, "/challenge")


def test_a_page_from_the_cache_costs_one_cache_call(member_client, card, page_cache_backend, monkeypatch):
    """The versions and the page come in one call: on Redis one round trip (a MGET)."""
    served_from_the_cache(page_cache_backend)
    first = page(member_client, "/dashboard")
    calls = cache_calls(monkeypatch)
    assert without_tokens(page(member_client, "/dashboard")) == without_tokens(first)
    assert calls == ["get_many"]


def test_a_page_stored_for_versions_that_moved_is_rendered_anew(
    member_client, member, card, page_cache_backend, monkeypatch
):
    """A page is kept under what chooses it with the versions it was rendered for: after a write it is still
    there, and a visit finds it in the same call, but renders and stores the new page."""
    served_from_the_cache(page_cache_backend)
    assert dip_count_on(page(member_client, "/challenge")) == "0"
    dip_register(user=member)
    calls = cache_calls(monkeypatch)
    assert dip_count_on(page(member_client, "/challenge")) == "1"
    assert calls[0] == "get_many" and calls[-1] in ("set_many", "set_many_each")


def test_a_page_rendered_after_a_write_asks_for_its_sections_in_one_call(
    member_client, member, card, page_cache_backend, monkeypatch
):
    """The page kept the sections it showed: after her dip the dashboard asks for all of them at once, those
    chosen by a value (`by`) and those of its included templates too, and stores what it rendered at once."""
    served_from_the_cache(page_cache_backend)
    page(member_client, "/dashboard")
    dip_register(user=member)
    calls = cache_calls(monkeypatch)
    assert "1 van 100 plonsen gedaan" in page(member_client, "/dashboard")
    assert calls.count("get_many") == 2 and "get" not in calls  # the versions and page, then every section
    stores = [call for call in calls if call.startswith("set")]
    if page_cache_backend == "redis":
        assert stores == ["set_many_each"]  # the page and its sections, each for its own time
    else:
        assert 1 <= len(stores) <= 2  # one call per lifetime: the page's and its sections'


def test_each_request_gets_its_own_csrf_token_and_it_works(client, member, card):
    client.force_login(member)
    page(client, "/challenge")  # fills the cache
    other = type(client)(enforce_csrf_checks=True)
    other.force_login(member)
    html = page(other, "/challenge")
    token = re.search(r'<meta name="csrf-token" content="([^"]+)"', html).group(1)
    assert CSRF_FIELD.search(html).group(1) == token
    response = other.post("/challenge/plons", HTTP_X_CSRFTOKEN=token, HTTP_ACCEPT="application/json")
    assert response.status_code == 201


def test_a_page_with_a_message_is_rendered_for_that_request_only(member_client, member, card):
    cached = page(member_client, "/dashboard")
    response = member_client.post("/challenge/start", {"challenge_id": "0"}, follow=True)  # refused: a message
    with_message = response.content.decode()
    assert with_message != cached and 'class="messages"' in with_message
    assert 'class="messages"' not in page(member_client, "/dashboard")


def test_a_member_never_sees_another_members_cached_page(card):
    page_of_first = page(client_for(card.user), "/dashboard")
    stranger = UserFactory(full_name="Iemand Anders")
    assert "Iemand Anders" in page(client_for(stranger), "/dashboard")
    assert "Iemand Anders" not in page_of_first


def client_for(user):
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client


# --- every service that changes what the pages show makes the next visit show it ------------------------


def dip_count_on(html: str) -> str:
    return re.search(r'"dipCount": (\d+)', html).group(1)


def test_dips_registered_undone_and_deleted_show_at_once(member_client, member, card):
    assert dip_count_on(page(member_client, "/challenge")) == "0"
    outcome = dip_register(user=member)
    assert dip_count_on(page(member_client, "/challenge")) == "1"
    dip_register(user=member)
    dip_delete(dip_id=outcome.dip.pk)  # the admin's delete
    assert dip_count_on(page(member_client, "/challenge")) == "1"
    latest = card.dips.get()
    dip_undo(user=member, dip_id=latest.pk)
    assert dip_count_on(page(member_client, "/challenge")) == "0"
    assert "0 van 100 plonsen gedaan" in page(member_client, "/dashboard")


def test_details_added_afterwards_show_at_once(member_client, member, card):
    dip = dip_register(user=member).dip
    assert "Zandvoort" not in page(member_client, "/challenge")
    dip_details_update(
        user=member, dip_id=dip.pk, conditions=DipConditions(water_temperature=Decimal("6.5"), spot="Zandvoort")
    )
    assert "Zandvoort" in page(member_client, "/challenge")


def test_starting_and_stopping_show_at_once(member_client, member, waterdieren):
    assert member_client.get("/challenge").status_code == 302  # no card: nothing cached
    assert "Start Nu" in page(member_client, "/dashboard")
    card = challenge_start(user=member, challenge_id=waterdieren.pk)
    assert "Naar stempelkaart" in page(member_client, "/dashboard")
    page(member_client, "/challenge")
    challenge_stop(user=member, user_challenge_id=card.pk)
    assert member_client.get("/challenge").status_code == 302
    assert "Start Nu" in page(member_client, "/dashboard")


def test_a_physical_badge_sent_shows_on_the_dashboard_at_once(member_client, member, card):
    for _ in range(5):
        dip_register(user=member)
    before = page(member_client, "/dashboard")
    physical_badges_mark(award_ids=list(UserBadge.objects.values_list("pk", flat=True)), status="verstuurd")
    after = page(member_client, "/dashboard")
    assert "Fysieke badge: nog te versturen" in before
    assert "Fysieke badge verstuurd op" in after


def test_a_new_name_and_the_admin_role_show_at_once(member_client, member):
    page(member_client, "/dashboard")
    account_profile_update(user=member, full_name="Nieuwe Naam", email=member.email, newsletter_consent=False)
    assert "Welkom, Nieuwe Naam!" in page(member_client, "/dashboard")
    assert 'href="/admin"' not in page(member_client, "/dashboard")
    TOTP.activate(member, TOTP_SECRET)  # the admin role acts only with a second factor
    admin_grant(user=member)
    assert 'href="/admin"' in page(member_client, "/dashboard")


def test_another_members_sign_up_moves_the_count_at_once(member_client, member):
    event = EventFactory(max_participants=2)
    assert "0 / 2 deelnemers" in page(member_client, "/dashboard")
    event_sign_up(user=UserFactory(), event_id=event.pk)
    assert "1 / 2 deelnemers" in page(member_client, "/dashboard")
    event_sign_up(user=member, event_id=event.pk)
    assert "Afmelden" in page(member_client, "/dashboard")
    event_leave(user=member, event_id=event.pk)
    assert "1 / 2 deelnemers" in page(member_client, "/dashboard")
    events_deactivate(event_ids=[event.pk])
    assert "deelnemers" not in page(member_client, "/dashboard")


def test_an_account_deleted_elsewhere_frees_its_place_on_every_dashboard(member_client):
    event = EventFactory(max_participants=2)
    leaving = UserFactory()
    event_sign_up(user=leaving, event_id=event.pk)
    assert "1 / 2 deelnemers" in page(member_client, "/dashboard")
    leaving.delete()  # a cascade past the services: the events' signal moves their version
    assert "0 / 2 deelnemers" in page(member_client, "/dashboard")


def test_a_catalogue_change_shows_on_every_page_at_once(member_client, member, card, waterdieren):
    assert "Waterdieren Stempelkaart" in page(member_client, "/challenge")
    page(member_client, "/dashboard")
    waterdieren.name = "Waterdieren Kaart 2027"
    challenge_save(challenge=waterdieren)  # its badges stay as they are
    assert "Waterdieren Kaart 2027" in page(member_client, "/challenge")
    assert "Waterdieren Kaart 2027" in page(member_client, "/dashboard")


# --- the versions and the cache itself --------------------------------------------------------------------


def test_a_shared_version_never_comes_back_also_when_the_cache_lost_it(page_cache_backend):
    served_from_the_cache(page_cache_backend)
    seen = set(shared_versions("catalogue"))
    for _ in range(20):
        pages_changed(CATALOGUE)
        (bumped,) = shared_versions("catalogue")
        assert bumped not in seen
        seen.add(bumped)
    cache.delete("version:catalogue")  # evicted, or Redis restarted
    (fresh,) = shared_versions("catalogue")
    assert fresh not in seen and fresh == shared_versions("catalogue")[0]


def test_upcoming_events_keep_the_page_only_until_the_first_one_starts(member):
    assert seconds_until_first_starts([]) == 60 * 60 * 24
    event = EventFactory()
    cards = upcoming_events_for(member)
    assert cards[0].event == event
    assert 0 < seconds_until_first_starts(cards) <= 60 * 60 * 24


# --- /admin: the club's figures, the physical badge counts and the catalogue ------------------------------


def stat_on(html: str, name: str) -> int:
    return int(re.search(rf'data-admin-stat="{name}">(\d+)<', html).group(1))


def test_the_admin_page_is_served_from_the_cache(admin_client, django_assert_max_num_queries, page_cache_backend):
    served_from_the_cache(page_cache_backend)
    first = page(admin_client, "/admin")
    # The session, the admin, and its role with its second factor: the access checks, nothing of the page but
    # the Systeemstatus card, filled in fresh on every request (its six queries, apps/operations/status.py, and
    # the first start while no worker was ever seen, apps/operations/first_start.py).
    with django_assert_max_num_queries(3 + 6 + 1 + cache_lookups(page_cache_backend)):
        second = page(admin_client, "/admin")
    assert without_tokens(second) == without_tokens(first)


def test_the_club_figures_move_with_every_service_that_changes_them(admin_client, admin_user, member, card):
    html = page(admin_client, "/admin")
    assert stat_on(html, "dips") == 0 and stat_on(html, "activeChallenges") == 1
    dip_register(user=member)
    assert stat_on(page(admin_client, "/admin"), "dips") == 1
    users = stat_on(page(admin_client, "/admin"), "users")
    user_delete(actor=admin_user, user_id=UserFactory().pk)
    assert stat_on(page(admin_client, "/admin"), "users") == users  # made past the services, gone through one
    challenge_stop(user=member, user_challenge_id=card.pk)
    html = page(admin_client, "/admin")
    assert stat_on(html, "dips") == 0 and stat_on(html, "activeChallenges") == 0


def test_the_physical_badge_counts_and_subscribers_move_with_their_services(admin_client, member, card):
    for _ in range(5):
        dip_register(user=member)
    assert "Nog te versturen: 1" in page(admin_client, "/admin")
    physical_badges_mark(award_ids=list(UserBadge.objects.values_list("pk", flat=True)), status="verstuurd")
    html = page(admin_client, "/admin")
    assert "Nog te versturen: 0" in html and "Verstuurd: 1" in html
    account_profile_update(user=member, full_name="Ander Lid", email=member.email, newsletter_consent=True)
    assert 'data-admin-stat="subscribers"><strong>1<' in page(admin_client, "/admin")


def test_the_physical_badges_list_is_never_stale(admin_client, member, card):
    """The list is a page of its own, rendered on every request: addresses and names are as they are now."""
    for _ in range(5):
        dip_register(user=member)
    assert "Geen postadres opgegeven" in page(admin_client, "/admin/fysieke-badges/")
    postal_address_save(
        user=member, recipient="", street="Strandweg 1", postcode="2042 AA", city="Zandvoort", country=""
    )
    assert "Strandweg 1" in page(admin_client, "/admin/fysieke-badges/")
    physical_badges_mark(award_ids=list(UserBadge.objects.values_list("pk", flat=True)), status="verstuurd")
    assert "Fysieke badge verstuurd op" in page(admin_client, "/admin/fysieke-badges/")


def test_each_admin_gets_their_own_admin_page(admin_client, admin_user):
    mine = page(admin_client, "/admin")
    other = AdminFactory()
    theirs = page(client_for(other), "/admin")
    assert f'"currentUserId": {admin_user.pk}' in mine and f'"currentUserId": {other.pk}' in theirs


def test_a_deploy_that_names_static_files_differently_is_a_new_release(settings):
    """A page cached with the last deploy's static URLs is not served by the next (config/staticfiles.py)."""
    release.cache_clear()
    before = release()
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": "config.staticfiles.StaticFilesStorage"}}
    release.cache_clear()
    try:
        assert release() != before
    finally:
        release.cache_clear()


def test_veilig_is_rendered_once_per_member_and_served_from_the_cache_after_that(
    member_client, admin_user, django_assert_max_num_queries, page_cache_backend
):
    served_from_the_cache(page_cache_backend)
    first = member_client.get("/veilig")
    assert "together/veilig.html" in [template.name for template in first.templates]
    with django_assert_max_num_queries(2 + cache_lookups(page_cache_backend)):
        second = member_client.get("/veilig")
    assert second.templates == []  # not rendered again: the page cache's copy
    assert without_tokens(second.content.decode()) == without_tokens(first.content.decode())
    # The text is everyone's, the header each member's own: an admin's copy has the Admin button.
    assert 'href="/admin"' not in first.content.decode()
    admin_client = type(member_client)()
    admin_client.force_login(admin_user)
    assert 'href="/admin"' in page(admin_client, "/veilig")
