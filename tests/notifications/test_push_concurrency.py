"""Web Push under concurrency (PostgreSQL, real threads): a delivery task run twice at once pushes each notice
once; the same browser subscribing twice at once is one row."""

import pytest

from apps.notifications.models import Notice, PushSubscription
from apps.notifications.notices import notice_send
from apps.notifications.push import notices_deliver
from apps.notifications.services import push_subscription_save
from tests.concurrency import requires_postgresql, run_concurrently
from tests.factories import UserFactory

pytestmark = [pytest.mark.concurrency, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _no_quiet_hours(settings):
    settings.QUIET_HOURS_START = settings.QUIET_HOURS_END = 0


def test_a_delivery_task_run_twice_at_once_pushes_each_notice_once(push_receiver):
    requires_postgresql()
    ids = []
    for user in UserFactory.create_batch(6):
        push_subscription_save(user=user, subscription=push_receiver.subscribe().as_json())
        ids.append(notice_send(user=user, kind="event_changed", title="Nieuwe tijd", body="11:00").pk)

    results = run_concurrently(lambda _: notices_deliver(notice_ids=ids), times=3)

    assert not [r for r in results if isinstance(r, Exception)], results
    assert len(push_receiver.received) == 6
    assert sum(r.get("sent", 0) for r in results) == 6
    assert set(Notice.objects.values_list("status", flat=True)) == {Notice.Status.SENT}


def test_the_same_browser_subscribing_twice_at_once_is_one_row(push_receiver):
    requires_postgresql()
    user = UserFactory()
    browser = push_receiver.subscribe().as_json()

    results = run_concurrently(lambda _: push_subscription_save(user=user, subscription=browser).pk, times=4)

    assert not [r for r in results if isinstance(r, Exception)], results
    assert len(set(results)) == 1
    assert PushSubscription.objects.count() == 1
