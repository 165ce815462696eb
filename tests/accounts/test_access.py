"""The access decorators on tiny views of their own, and the real member pages where they exist."""

import pytest
from django.contrib.messages import get_messages
from django.http import HttpResponse, JsonResponse
from django.urls import path, resolve

from apps.accounts.access import admin_required, admin_required_json, member_required_json
from tests.factories import AdminFactory

pytestmark = pytest.mark.django_db


@admin_required
def admin_page(request):
    return HttpResponse("admin ok")


@member_required_json
def member_api(request):
    return JsonResponse({"ok": True})


@admin_required_json
def admin_api(request):
    return JsonResponse({"ok": True})


urlpatterns = [
    path("t/admin", admin_page),
    path("t/member.json", member_api),
    path("t/admin.json", admin_api),
]


@pytest.mark.urls(__name__)
def test_admin_required_sends_anonymous_visitors_to_auth_with_next(client):
    response = client.get("/t/admin?x=1")
    assert response.status_code == 302
    assert response["Location"] == "/auth?next=/t/admin%3Fx%3D1"


@pytest.mark.urls(__name__)
def test_admin_required_sends_members_to_the_dashboard_with_the_dutch_message(member_client):
    response = member_client.get("/t/admin")
    assert response.status_code == 302
    assert response["Location"] == "/dashboard"
    assert [str(m) for m in get_messages(response.wsgi_request)] == ["Je hebt geen admin rechten"]


@pytest.mark.urls(__name__)
def test_admin_required_lets_admins_in(admin_client):
    assert admin_client.get("/t/admin").content == b"admin ok"


@pytest.mark.urls(__name__)
def test_member_json_refuses_anonymous_with_401_and_the_login_url(client):
    response = client.get("/t/member.json")
    assert response.status_code == 401
    assert response.json() == {
        "error": "Je sessie is verlopen. Log opnieuw in.",
        "code": "session_expired",
        "login_url": "/auth",
    }


@pytest.mark.urls(__name__)
def test_member_json_lets_members_in(member_client):
    assert member_client.get("/t/member.json").json() == {"ok": True}


@pytest.mark.urls(__name__)
def test_member_json_treats_a_deactivated_account_as_signed_out(member_client, member):
    member.is_active = False
    member.save()
    assert member_client.get("/t/member.json").status_code == 401


@pytest.mark.urls(__name__)
def test_admin_json_answers_401_403_200(client, member, admin_user):
    anonymous = client.get("/t/admin.json")
    assert anonymous.status_code == 401
    assert anonymous.json() == {
        "error": "Sessie verlopen, log opnieuw in",
        "code": "session_expired",
        "login_url": "/auth",
    }
    client.force_login(member)
    refused = client.post("/t/admin.json")
    assert refused.status_code == 403
    assert refused.json() == {"error": "Je hebt geen admin rechten", "code": "not_admin"}
    client.force_login(admin_user)
    assert client.get("/t/admin.json").json() == {"ok": True}


@pytest.mark.urls(__name__)
def test_a_revoked_admin_is_refused_at_once(client, admin_user):
    from apps.accounts.services import admin_revoke

    client.force_login(admin_user)
    assert client.get("/t/admin.json").status_code == 200
    AdminFactory(email="kees@example.nl")  # the club keeps an active admin
    admin_revoke(user=admin_user)
    assert client.get("/t/admin.json").status_code == 403


@pytest.mark.parametrize("page", ["/dashboard", "/challenge", "/admin"])
def test_anonymous_visitors_of_member_pages_go_to_auth(client, page):
    resolve(page)  # a page that was removed fails here (Resolver404) instead of passing unnoticed
    response = client.get(page)
    assert response.status_code == 302
    assert response["Location"].startswith("/auth")
    assert response["Location"] == f"/auth?next={page}"


@pytest.mark.urls(__name__)
def test_the_admin_role_without_a_second_factor_is_refused_like_a_member(bare_admin_client):
    """Decided by the decorators themselves: these URLs are outside the prefixes the middleware watches."""
    response = bare_admin_client.get("/t/admin")
    assert response["Location"] == "/dashboard"
    assert "Je hebt geen admin rechten" in [str(m) for m in get_messages(response.wsgi_request)]
    response = bare_admin_client.get("/t/admin.json")
    assert response.status_code == 403 and response.json() == {
        "error": "Je hebt geen admin rechten",
        "code": "not_admin",
    }
