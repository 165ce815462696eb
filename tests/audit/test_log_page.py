"""/admin/logboek/ (admins only, paged, filtered by action and actor) and how long rows stay."""

import datetime

import pytest
from django.core.management import call_command
from django.utils import timezone

from apps.audit.actions import AuditAction
from apps.audit.models import AuditEntry
from apps.audit.services import AuditMeta, audit_record
from tests.factories import AdminFactory, OrganiserFactory

pytestmark = pytest.mark.django_db


def _rows(count, *, meta, action=AuditAction.USERS_EXPORTED):
    for number in range(count):
        audit_record(meta=meta, action=action, detail=f"regel {number}")


def test_admins_page_through_the_log_newest_first(client, django_assert_max_num_queries):
    admin = AdminFactory(email="anna@example.nl")
    _rows(120, meta=AuditMeta(actor_id=admin.pk, actor_label=admin.email, ip="192.0.2.1"))
    client.force_login(admin)
    with django_assert_max_num_queries(12):
        page = client.get("/admin/logboek/").content.decode()
    assert page.count('data-testid="audit-entry"') == 50
    assert "regel 119" in page and "regel 70" in page and "regel 69" not in page
    assert "Gebruikerslijst gedownload" in page and "192.0.2.1" in page
    next_url = page.split('href="?voor=')[1].split('"')[0]
    second = client.get(f"/admin/logboek/?voor={next_url}").content.decode()
    assert "regel 69" in second and "regel 70" not in second


def test_the_log_filters_by_action_and_by_actor(client):
    admin, organiser = AdminFactory(email="anna@example.nl"), OrganiserFactory(email="olga@example.nl")
    _rows(2, meta=AuditMeta(actor_id=admin.pk, actor_label=admin.email), action=AuditAction.USERS_EXPORTED)
    _rows(3, meta=AuditMeta(actor_id=organiser.pk, actor_label=organiser.email), action=AuditAction.EVENT_CANCELLED)
    client.force_login(admin)
    by_action = client.get("/admin/logboek/", {"actie": "event_cancelled"}).content.decode()
    assert by_action.count('data-testid="audit-entry"') == 3 and "Gebruikerslijst gedownload</strong>" not in by_action
    by_actor = client.get("/admin/logboek/", {"wie": admin.pk}).content.decode()
    assert by_actor.count('data-testid="audit-entry"') == 2
    for junk in ({"actie": "<script>"}, {"wie": "x"}, {"voor": "9" * 5000}):
        assert client.get("/admin/logboek/", junk).status_code == 200


def test_organisers_and_members_do_not_see_the_log(client):
    client.force_login(OrganiserFactory())
    assert client.get("/admin/logboek/")["Location"] == "/dashboard"


def test_the_log_keeps_audit_keep_days_and_the_command_prunes(settings, capsys):
    settings.AUDIT_KEEP_DAYS = 30
    meta = AuditMeta(actor_id=None, actor_label="manage.py test")
    old = audit_record(meta=meta, action=AuditAction.USERS_EXPORTED)
    AuditEntry.objects.filter(pk=old.pk).update(at=timezone.now() - datetime.timedelta(days=31))
    kept = audit_record(meta=meta, action=AuditAction.USERS_EXPORTED)
    AuditEntry.objects.filter(pk=kept.pk).update(at=timezone.now() - datetime.timedelta(days=29))
    call_command("prune_audit_log")
    assert capsys.readouterr().out.strip() == "1 oude logboekregel(s) verwijderd."
    assert list(AuditEntry.objects.values_list("pk", flat=True)) == [kept.pk]
    call_command("prune_audit_log")  # again: nothing more
    assert AuditEntry.objects.count() == 1


def test_the_log_is_not_in_the_django_admin():
    from django.contrib import admin

    assert AuditEntry not in admin.site._registry
