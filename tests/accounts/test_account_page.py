from django.urls import reverse


def test_account_page_shows_the_own_profile(member_client, member, other_member, django_assert_max_num_queries):
    # Session and user, then one query per section's own data (profile, second factors, calendar and mail
    # settings, the club's sharing choice, postal address, Meldingen: choices, old mail choices and devices),
    # whatever the member has.
    with django_assert_max_num_queries(12):
        response = member_client.get(reverse("account"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Mijn account" in html
    assert member.email in html
    assert other_member.email not in html


def test_account_page_needs_sign_in(client, db):
    response = client.get(reverse("account"))
    assert response.status_code == 302
    assert response["Location"].startswith("/auth?next=/account")


def test_header_links_to_the_account_page(member_client):
    html = member_client.get(reverse("dashboard")).content.decode()
    assert 'href="/account"' in html
