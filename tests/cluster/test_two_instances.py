"""Issue 22 §7: two of everything. Two gunicorn instances and two task workers share PostgreSQL, Redis
and the S3 server, with nginx (deploy/nginx/koud.conf) balancing round robin over both. A member's
journey lands on both: no stale page after a change made on the other instance, an offline tap
replayed to the other instance counts once, each mail goes out once with two workers, failed sign-ins
count across both, and when one instance dies the other serves on and nothing is lost.

Where a step must land on a given instance, the test talks to that instance directly (both listen on
loopback, as they would inside the network); everything else goes through nginx, whose test wrapper
names the instance that answered (X-Koud-Upstream).
"""

import datetime
import json
import threading
import time
import uuid

import pytest
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from apps.accounts.adapter import MESSAGE_TOO_MANY_LOGIN_ATTEMPTS
from apps.challenges.models import Dip
from apps.invitations.services import invitation_create
from apps.notifications.models import Mail
from tests.support.cluster import Browser, phone_photo

from .members import PASSWORD, member_with_card

pytestmark = pytest.mark.cluster


def dip_count(answer) -> int:
    """The count on the stamp card of /challenge (a page served from the shared cache)."""
    assert answer.status == 200, answer.status
    html = answer.text
    start = html.index('id="stampcard-data"')
    return json.loads(html[html.index(">", start) + 1 : html.index("</script>", start)])["dipCount"]


def on(cluster, instance, browser: Browser) -> Browser:
    """The same member (same cookies) talking straight to one instance."""
    return Browser(port=instance.port, jar=browser.jar)


def test_a_change_on_one_instance_shows_on_the_other(running_cluster):
    user, card = member_with_card("heen-en-weer@example.nl")
    browser = running_cluster.browser()
    browser.sign_in(user.email, PASSWORD)
    a, b = (on(running_cluster, instance, browser) for instance in running_cluster.instances)
    # Both instances have the page cached with no dips.
    assert [dip_count(a.get("/challenge")), dip_count(b.get("/challenge"))] == [0, 0]

    assert a.register_dip(photo=phone_photo(200_000)).status == 201
    assert dip_count(b.get("/challenge")) == 1
    assert b.register_dip().status == 201
    assert dip_count(a.get("/challenge")) == 2

    answers = [browser.get("/challenge") for _ in range(4)]
    assert [dip_count(answer) for answer in answers] == [2] * 4
    assert {answer.upstream for answer in answers} == {running_cluster.upstream(i) for i in running_cluster.instances}
    # The photo taken on A is in the shared storage: B shows it.
    dip = Dip.objects.get(user_challenge=card, number=1)
    assert b.get(f"/foto/{dip.pk}").status in (200, 302)


def test_an_offline_tap_replayed_to_the_other_instance_counts_once(running_cluster):
    user, card = member_with_card("offline@example.nl")
    browser = running_cluster.browser()
    browser.sign_in(user.email, PASSWORD)
    a, b = (on(running_cluster, instance, browser) for instance in running_cluster.instances)
    tap = {"request_id": str(uuid.uuid4()), "tapped_at": (timezone.now() - datetime.timedelta(hours=2)).isoformat()}

    first = a.register_dip(**tap)
    replays = [b.register_dip(**tap), browser.register_dip(**tap), browser.register_dip(**tap)]

    assert first.status == 201
    assert [replay.status for replay in replays] == [200, 200, 200]
    assert {json.loads(replay.body)["dip"]["id"] for replay in replays} == {json.loads(first.body)["dip"]["id"]}
    assert Dip.objects.filter(user_challenge=card).count() == 1


def test_each_mail_goes_out_once_with_two_workers(running_cluster):
    addresses = [f"nieuw{number}@example.nl" for number in range(12)]
    for address in addresses:
        invitation_create(email=address)  # one background task each: the two workers race for them

    deadline = time.monotonic() + 60
    while DBTaskResult.objects.exclude(status__in=["SUCCESSFUL", "FAILED"]).exists():
        assert time.monotonic() < deadline, "the workers left tasks in the queue"
        time.sleep(0.2)
    time.sleep(1)  # a second send of any mail would have arrived by now

    assert sorted(message["To"] for message in running_cluster.inbox.messages) == sorted(addresses)
    assert set(Mail.objects.values_list("status", flat=True)) == {Mail.Status.SENT}
    workers = {worker for ids in DBTaskResult.objects.values_list("worker_ids", flat=True) for worker in ids}
    print(f"\n{len(addresses)} mails by {len(workers)} worker(s)")


def test_failed_sign_ins_count_across_both_instances(running_cluster):
    user, _ = member_with_card("geraden@example.nl")
    guesser = running_cluster.browser()
    token = guesser.csrf_token()
    fields = {"form": "inloggen", "login": user.email}

    # Five wrong passwords (the per-address limit), alternating between the instances.
    failures = [guesser.post_form("/auth", {**fields, "password": f"fout{n}"}, token=token) for n in range(5)]
    last = guesser.post_form("/auth", {**fields, "password": PASSWORD}, token=token)

    assert [answer.status for answer in failures] == [200] * 5
    assert {answer.upstream for answer in failures} == {running_cluster.upstream(i) for i in running_cluster.instances}
    assert last.status == 200 and "sessionid" not in guesser.jar
    assert MESSAGE_TOO_MANY_LOGIN_ATTEMPTS.split(".")[0] in last.text


def test_when_one_instance_dies_the_other_serves_on_and_nothing_is_lost(running_cluster):
    user, card = member_with_card("doorzetter@example.nl")
    browser = running_cluster.browser()
    browser.sign_in(user.email, PASSWORD)
    dying, surviving = running_cluster.instances
    taps_sent: list[str] = []
    answers_after_kill = []
    killed = threading.Event()
    errors: list[str] = []

    def tap_like_a_phone() -> None:
        """Twelve taps; one that gets no answer, or a 502, is sent again with its request id (the phone's queue)."""
        phone = Browser(port=running_cluster.port, jar=browser.jar)
        for number in range(12):
            request_id = str(uuid.uuid4())
            taps_sent.append(request_id)
            for _attempt in range(5):
                try:
                    answer = phone.register_dip(request_id=request_id)
                except OSError:
                    continue
                if answer.status in (200, 201):
                    break
            else:
                errors.append(f"tap {number} never arrived")
            if number == 3:
                killed.wait(30)

    tapping = threading.Thread(target=tap_like_a_phone)
    tapping.start()
    while len(taps_sent) < 4:
        time.sleep(0.05)
    dying.kill()  # SIGKILL to the master and its workers: the machine is gone
    killed.set()
    reader = Browser(port=running_cluster.port, jar=dict(browser.jar))
    while tapping.is_alive():
        answers_after_kill.append(reader.get("/dashboard"))
    tapping.join()

    assert not errors, errors
    assert not dying.running
    assert [answer.status for answer in answers_after_kill] == [200] * len(answers_after_kill)
    assert len(answers_after_kill) >= 2
    # Every tap counted once: none lost with the dead instance, none doubled by a resend.
    assert Dip.objects.filter(user_challenge=card).count() == len(taps_sent) == 12
    assert dip_count(Browser(port=surviving.port, jar=browser.jar).get("/challenge")) == 12
