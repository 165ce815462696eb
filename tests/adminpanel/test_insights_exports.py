"""Issue 15 on /admin: the insight charts and stat cards, Excel exports, physical badges, postal address."""

import datetime
import io
import re

import openpyxl
import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.accounts.models import User
from apps.adminpanel.insights import admin_insights
from apps.adminpanel.selectors import PHYSICAL_PAGE_SIZE, admin_stats
from apps.challenges.card_payloads import stamp_card_props
from apps.challenges.models import Badge, Challenge, Dip, PhysicalStatus, UserBadge, UserChallenge
from apps.challenges.services.errors import ChallengeError
from apps.shipping.models import PostalAddress
from apps.shipping.services import physical_badges_mark, postal_address_save
from tests.factories import DipFactory, UserBadgeFactory, UserChallengeFactory, UserFactory

pytestmark = pytest.mark.django_db

TODAY = datetime.date(2026, 11, 25)  # a Wednesday


def workbook_of(response):
    assert response.status_code == 200, response.get("Location")
    assert response["Content-Type"] == "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    assert response["Content-Disposition"].startswith("attachment; filename=")
    return openpyxl.load_workbook(io.BytesIO(response.content)).active


# --- stat cards and charts --------------------------------------------------------------------------


def test_stat_cards_count_this_week_and_this_month():
    card = UserChallengeFactory(user=UserFactory(created_at=timezone.make_aware(datetime.datetime(2026, 10, 30))))
    DipFactory(user_challenge=card, dip_date=datetime.date(2026, 11, 23))  # Monday of this week
    DipFactory(user_challenge=card, dip_date=datetime.date(2026, 11, 22))  # last week
    UserFactory(created_at=timezone.make_aware(datetime.datetime(2026, 11, 1, 0, 30)))
    stats = admin_stats(today=TODAY)
    assert (stats.dips, stats.dips_this_week, stats.new_members_this_month) == (2, 1, 1)


@time_machine.travel(datetime.datetime(2026, 11, 25, 12, tzinfo=datetime.UTC), tick=False)
def test_each_chart_counts_with_one_aggregate_query(django_assert_num_queries):
    # The members join "now", so now is pinned inside the month that the last row reads.
    one, two = UserChallengeFactory(), UserChallengeFactory()
    for card, day in [(one, 23), (one, 24), (two, 24), (one, 16)]:
        DipFactory(user_challenge=card, dip_date=datetime.date(2026, 11, day))
    badge = Badge.objects.get(milestone_dips=5, challenge__name="Eerste Plonsen")
    UserBadge.objects.create(user=one.user, user_challenge=one, badge=badge)
    # Dips and active members share one pass over the dips: three queries for four charts.
    with django_assert_num_queries(3):
        insights = admin_insights(today=TODAY)
    dips = dict(insights.dips_per_week.rows)
    assert dips["week 48 (vanaf 23 november 2026)"] == "3 plonsen"
    assert dips["week 47 (vanaf 16 november 2026)"] == "1 plons"
    assert len(insights.dips_per_week.points) == 26
    members = dict(insights.active_members_per_week.rows)
    assert members["week 48 (vanaf 23 november 2026)"] == "2 leden"
    assert insights.new_members_per_month.rows[-1] == ("november 2026", f"{User.objects.count()} leden")
    assert insights.badges_per_milestone.rows == [("5 plonsen", "1 badge")]


def test_the_admin_page_draws_the_charts_as_accessible_svg(admin_client):
    html = admin_client.get("/admin").content.decode()
    for title in [
        "Plonsen per week",
        "Actieve leden per week",
        "Nieuwe leden per maand",
        "Verdiende badges per mijlpaal",
    ]:
        assert f">{title}</title>" in html
    assert len(re.findall(r'<svg class="chart-svg"[^>]*role="img"', html)) == 4
    assert html.count('<table class="visually-hidden">') == 4


# --- Excel ------------------------------------------------------------------------------------------


def test_newsletter_excel_has_text_cells_real_dates_and_a_frozen_header(admin_client):
    UserFactory(
        email="lid@example.nl",
        full_name='=HYPERLINK("http://kwaad.example","klik")',
        newsletter_consent=True,
        created_at=timezone.make_aware(datetime.datetime(2026, 3, 4, 23, 30)),
    )
    sheet = workbook_of(admin_client.get("/admin/nieuwsbrief.xlsx"))
    assert [c.value for c in sheet[1]] == ["Email", "Naam", "Aangemeld op"]
    assert sheet.freeze_panes == "A2"
    email, name, joined = sheet[2]
    assert name.data_type == "s" and name.value.startswith("=HYPERLINK")  # text, never a formula
    assert joined.is_date and joined.value == datetime.datetime(2026, 3, 4)  # the Amsterdam date
    assert sheet.column_dimensions["A"].width > 20


def test_newsletter_excel_without_subscribers_says_so(admin_client):
    response = admin_client.get("/admin/nieuwsbrief.xlsx", follow=True)
    assert "Geen nieuwsbrief abonnees gevonden" in response.content.decode()


def test_users_excel_has_dips_badges_and_last_dip(admin_client, member):
    card = UserChallengeFactory(user=member)
    DipFactory(user_challenge=card, number=1, dip_date=datetime.date(2026, 11, 2))
    DipFactory(user_challenge=card, number=2, dip_date=datetime.date(2026, 11, 9))
    UserBadgeFactory(user_challenge=card)
    sheet = workbook_of(admin_client.get("/admin/gebruikers.xlsx"))
    assert [c.value for c in sheet[1]] == ["Email", "Naam", "Lid sinds", "Plonsen", "Badges", "Laatste plons"]
    rows = {row[0]: row[1:] for row in sheet.iter_rows(min_row=2, values_only=True)}
    assert rows["marit@example.nl"][2:] == (2, 1, datetime.datetime(2026, 11, 9))
    assert rows["anna@example.nl"][2:] == (0, 0, None)


@pytest.mark.parametrize(
    "url", ["/admin/nieuwsbrief.xlsx", "/admin/gebruikers.xlsx", "/admin/fysieke-badges/te-versturen.xlsx"]
)
def test_excel_downloads_are_for_admins_only(client, member, url):
    assert client.get(url)["Location"].startswith("/auth")
    client.force_login(member)
    assert client.get(url)["Location"] == "/dashboard"


# --- physical badges --------------------------------------------------------------------------------


def test_marking_badges_sent_and_back(admin_user):
    awards = UserBadgeFactory.create_batch(3)
    assert {a.physical_status for a in awards} == {PhysicalStatus.TO_SEND}
    changed = physical_badges_mark(award_ids=[awards[0].pk, awards[1].pk], status="verstuurd", today=TODAY)
    assert changed == 2
    sent = UserBadge.objects.get(pk=awards[0].pk)
    assert (sent.physical_status, sent.physical_status_on) == ("verstuurd", TODAY)
    assert sent.physical_status_text == "Fysieke badge verstuurd op 25 november 2026"
    physical_badges_mark(award_ids=[awards[0].pk], status="te_versturen")
    back = UserBadge.objects.get(pk=awards[0].pk)
    assert (back.physical_status_on, back.physical_status_text) == (None, "Fysieke badge: nog te versturen")


@pytest.mark.parametrize(
    ("ids", "status", "on", "message"),
    [
        ([], "verstuurd", None, "Kies eerst een of meer badges."),
        ([1], "kwijt", None, "Kies een geldige status."),
        ([1], "uitgereikt", datetime.date(2026, 12, 1), "De datum kan niet in de toekomst liggen."),
    ],
)
def test_marking_refuses_bad_input(ids, status, on, message):
    with pytest.raises(ChallengeError, match=message):
        physical_badges_mark(award_ids=ids, status=status, on=on, today=TODAY)


def test_the_admin_list_filters_and_marks_several_at_once(admin_client):
    waiting, other = UserBadgeFactory(), UserBadgeFactory()
    html = admin_client.get(f"/admin/fysieke-badges/?status=te_versturen&badge={waiting.badge_id}").content.decode()
    assert f'id="award-{waiting.pk}"' in html and f'id="award-{other.pk}"' not in html
    response = admin_client.post(
        "/admin/fysieke-badges/markeren",
        {
            "award": [waiting.pk, other.pk],
            "physical_status": "uitgereikt",
            "datum": "2026-11-20",
            "filter_status": "te_versturen",
        },
        follow=True,
    )
    assert response.redirect_chain[-1][0] == "/admin/fysieke-badges/?status=te_versturen"
    assert "2 badges gemarkeerd als: uitgereikt." in response.content.decode()
    assert set(UserBadge.objects.values_list("physical_status", "physical_status_on")) == {
        ("uitgereikt", datetime.date(2026, 11, 20))
    }


def test_bad_marking_input_gives_a_message_not_an_error(admin_client):
    award = UserBadgeFactory()
    for data, message in [
        ({"award": [award.pk], "physical_status": "verstuurd", "datum": "gisteren"}, "Vul een geldige datum in."),
        ({"physical_status": "verstuurd"}, "Kies eerst een of meer badges."),
        ({"award": ["x", award.pk], "physical_status": "<script>"}, "Kies een geldige status."),
    ]:
        response = admin_client.post("/admin/fysieke-badges/markeren", data, follow=True)
        assert response.status_code == 200 and message in response.content.decode()
    assert UserBadge.objects.get(pk=award.pk).physical_status == "te_versturen"


def test_members_see_the_physical_status_on_their_badge_cards(member_client, member):
    award = UserBadgeFactory(user_challenge=UserChallengeFactory(user=member))
    physical_badges_mark(award_ids=[award.pk], status="verstuurd", on=datetime.date(2026, 11, 3))
    html = member_client.get("/dashboard").content.decode()
    assert "Fysieke badge verstuurd op 3 november 2026" in html
    props = stamp_card_props(award.user_challenge)
    assert props["badges"][0]["physicalStatusDisplay"] == "Fysieke badge verstuurd op 3 november 2026"


def test_the_to_send_list_exports_with_addresses_for_labels(admin_client, member):
    award = UserBadgeFactory(user_challenge=UserChallengeFactory(user=member))
    sent = UserBadgeFactory()
    physical_badges_mark(award_ids=[sent.pk], status="verstuurd")
    postal_address_save(
        user=member, recipient="", street="Strandweg 1", postcode="1234ab", city="Zandvoort", country=""
    )
    sheet = workbook_of(admin_client.get("/admin/fysieke-badges/te-versturen.xlsx"))
    rows = list(sheet.iter_rows(min_row=2, values_only=True))
    assert rows == [
        (
            "Marit Zwemmer",
            "marit@example.nl",
            "Strandweg 1",
            "1234AB",
            "Zandvoort",
            "Nederland",
            award.badge.name,
            award.user_challenge.challenge.name,
            datetime.datetime.combine(timezone.localdate(award.earned_at), datetime.time.min),
        )
    ]
    csv = admin_client.get("/admin/fysieke-badges/te-versturen.csv").content.decode()
    assert csv.startswith("\ufeffNaam,Email,Straat en huisnummer") and "Strandweg 1,1234AB,Zandvoort" in csv


# --- postal address on /account ----------------------------------------------------------------------


def test_a_member_saves_and_removes_a_postal_address(member_client, member):
    html = member_client.get("/account").content.decode()
    assert "Postadres voor fysieke badges" in html and "alleen admins zien het" in html
    response = member_client.post(
        "/account/postadres", {"street": "Dijk 2", "postcode": "9999 zz", "city": "Urk"}, follow=True
    )
    assert response.redirect_chain[-1][0] == "/account#postadres"
    assert "Je postadres is opgeslagen." in response.content.decode()
    assert PostalAddress.objects.get(user=member).lines == ["Marit Zwemmer", "Dijk 2", "9999 ZZ Urk", "Nederland"]
    response = member_client.post("/account/postadres", {"street": "Dijk 2"}, follow=True)
    assert "Vul straat en huisnummer, postcode en plaats in" in response.content.decode()
    assert PostalAddress.objects.get(user=member).city == "Urk"  # a half address changes nothing
    member_client.post("/account/postadres", {"verwijderen": "1"})
    assert not PostalAddress.objects.filter(user=member).exists()


def test_the_address_goes_with_the_account(member):
    postal_address_save(user=member, recipient="", street="Dijk 2", postcode="1", city="Urk", country="")
    User.objects.filter(pk=member.pk).delete()
    assert not PostalAddress.objects.exists()


def test_a_too_long_address_is_refused_with_a_message(member_client, member):
    response = member_client.post(
        "/account/postadres", {"street": "x" * 500, "postcode": "1", "city": "Urk"}, follow=True
    )
    assert response.status_code == 200 and "200 tekens" in response.content.decode()
    assert not PostalAddress.objects.exists()


# --- query budgets at 1 and 2,000 members --------------------------------------------------------------


def make_club(size: int) -> None:
    users = User.objects.bulk_create(
        [User(email=f"lid{n}@example.nl", full_name=f"Lid {n}", newsletter_consent=True) for n in range(size)]
    )
    challenge = Challenge.objects.get(name="Eerste Plonsen")
    badge = challenge.badges.get()
    cards = UserChallenge.objects.bulk_create(
        [UserChallenge(user=u, challenge=challenge, challenge_type="normal") for u in users]
    )
    today = timezone.localdate()
    Dip.objects.bulk_create(
        [
            Dip(user=c.user, user_challenge=c, number=n, dip_date=today - datetime.timedelta(days=7 * n))
            for c in cards
            for n in range(1, 4)
        ]
    )
    UserBadge.objects.bulk_create([UserBadge(user=c.user, user_challenge=c, badge=badge) for c in cards])
    PostalAddress.objects.bulk_create(
        [PostalAddress(user=u, street="Dijk 1", postcode="1234 AB", city="Urk") for u in users[::2]]
    )


@pytest.mark.parametrize("size", [1, 2000])
def test_issue_15_pages_and_downloads_have_fixed_query_budgets(admin_client, size, django_assert_max_num_queries):
    make_club(size)
    # Every budget includes the one query for the admin's second factor (apps/accounts/second_factor.py); /admin also
    # the Systeemstatus card's six, fresh on every request (apps/operations/status.py).
    with django_assert_max_num_queries(16):
        assert admin_client.get("/admin").status_code == 200
    with django_assert_max_num_queries(8):
        assert admin_client.get("/admin/fysieke-badges/?status=te_versturen").status_code == 200
    for url in [
        "/admin/nieuwsbrief.xlsx",
        "/admin/gebruikers.xlsx",
        "/admin/fysieke-badges/te-versturen.xlsx",
        "/admin/fysieke-badges/te-versturen.csv",
    ]:
        # +3: the download's row in the audit log (a savepoint, the insert, its release inside the test's transaction).
        with django_assert_max_num_queries(8):
            assert admin_client.get(url).status_code == 200
    ids = list(UserBadge.objects.values_list("pk", flat=True)[:PHYSICAL_PAGE_SIZE])  # one page, all ticked
    # 10: the marked members' pages show the new status, so their page version moves (one UPDATE).
    with django_assert_max_num_queries(10):
        admin_client.post("/admin/fysieke-badges/markeren", {"award": ids, "physical_status": "verstuurd"})
    assert UserBadge.objects.filter(physical_status="verstuurd").count() == min(size, PHYSICAL_PAGE_SIZE)


def test_the_physical_list_pages_without_gaps_or_repeats(admin_client):
    make_club(PHYSICAL_PAGE_SIZE + 5)
    first = admin_client.get("/admin/fysieke-badges/?status=te_versturen").content.decode()
    shown = set(re.findall(r'id="award-(\d+)"', first))
    assert len(shown) == PHYSICAL_PAGE_SIZE
    next_url = re.search(r'href="\?(status=te_versturen&amp;na=[^"]+)"', first).group(1)
    second = admin_client.get("/admin/fysieke-badges/?" + next_url.replace("&amp;", "&")).content.decode()
    rest = set(re.findall(r'id="award-(\d+)"', second))
    assert len(rest) == 5 and not rest & shown
    # A spoilt cursor is no error: the list starts at the top.
    assert admin_client.get("/admin/fysieke-badges/?na=%%%").status_code == 200


def test_the_django_admin_writes_addresses_through_the_service(admin_client, member):
    data = {"user": member.pk, "recipient": "", "street": " Dijk 2 ", "postcode": "8321 ab", "city": "Urk"}
    response = admin_client.post("/django-admin/shipping/postaladdress/add/", data | {"country": "Nederland"})
    assert response.status_code == 302
    assert PostalAddress.objects.get(user=member).lines == ["Marit Zwemmer", "Dijk 2", "8321 AB Urk", "Nederland"]


# The tables whose rows grow with the club's history: /admin reads their tallies, never the rows themselves.
HISTORY_TABLES = ('"challenges_dip"', '"challenges_userbadge"', '"challenges_memberweektally"')


@pytest.mark.parametrize("dips_per_member", [1, 60])
def test_the_admin_page_reads_no_dip_or_award_of_the_clubs_history(
    admin_client, dips_per_member, django_assert_max_num_queries
):
    """The same queries at any history: the counts come from the weekly and badge tallies (a row per week,
    per badge and status), so no query of the page reads a dip or an earned badge."""
    cards = UserChallengeFactory.create_batch(3)
    today = timezone.localdate()
    Dip.objects.bulk_create(
        Dip(user=card.user, user_challenge=card, number=n + 1, dip_date=today - datetime.timedelta(days=3 * n))
        for card in cards
        for n in range(dips_per_member)
    )
    UserBadgeFactory(user_challenge=cards[0])
    with CaptureQueriesContext(connection) as queries, django_assert_max_num_queries(16):
        html = admin_client.get("/admin").content.decode()
    assert f'data-admin-stat="dips">{3 * dips_per_member}<' in html
    reading_history = [q["sql"] for q in queries.captured_queries if any(t in q["sql"] for t in HISTORY_TABLES)]
    assert reading_history == []
