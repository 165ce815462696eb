"""A write declares what it changed (`pages_changed`): every version it names moves in the write's transaction and
again after its commit, all of them in one cache call."""

import pytest
from django.core.cache import caches
from django.db import transaction

from apps.core.page_cache import CLUB, FEED, MEMBER_DIPS, pages_changed
from apps.core.page_versions import member_versions, shared_versions
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _versions(user_id: int) -> tuple:
    return shared_versions(CLUB, FEED) + member_versions(user_id, MEMBER_DIPS)


def test_every_version_a_write_names_moves_now_and_after_its_commit(django_capture_on_commit_callbacks):
    anna, bram = UserFactory(), UserFactory()
    before, untouched = _versions(anna.pk), member_versions(bram.pk, MEMBER_DIPS)
    with django_capture_on_commit_callbacks(execute=True) as callbacks, transaction.atomic():
        pages_changed(CLUB, FEED, MEMBER_DIPS, user_ids=[anna.pk])
        during = _versions(anna.pk)
    after = _versions(anna.pk)

    assert len(callbacks) == 1
    assert all(old != new for old, new in zip(before, during, strict=True))
    assert all(old != new for old, new in zip(during, after, strict=True))
    assert member_versions(bram.pk, MEMBER_DIPS) == untouched


def test_the_versions_move_in_one_cache_call(monkeypatch):
    anna = UserFactory()
    pages = caches["pages"]
    calls: list[str] = []
    for method in ("set", "set_many"):
        real = getattr(pages, method)
        monkeypatch.setattr(pages, method, lambda *a, _m=method, _real=real, **kw: calls.append(_m) or _real(*a, **kw))
    with transaction.atomic():
        pages_changed(CLUB, FEED, MEMBER_DIPS, user_ids=[anna.pk])
    # Nothing version by version: one set_many (a backend without one of its own may carry it out key by key).
    assert calls[0] == "set_many" and calls.count("set_many") == 1
