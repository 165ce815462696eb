"""What a member page costs the app process as rendered after the write that typically precedes it, as a
multiple of a bare signed-in page (issue 37, goal 1).

    DJANGO_SETTINGS_MODULE=config.settings.production DATABASE_URL=postgres://root@127.0.0.1:5432/koud_bench \\
    DJANGO_SECRET_KEY=... DJANGO_ALLOWED_HOSTS=127.0.0.1 python bench/rendered_cost.py --out rendered_cost.json

The page cache makes a page cheap only until something it shows changes, and members visit right after
they changed something: her own dip before /dashboard, /challenge, /statistieken and /account; another
member's dip before /club; her sign-up for an event, and another member's afspraak, before the plan list /samen
(/events only redirects there). Each round visits the page (not timed: what the other pages' writes changed is
rendered there), does its write through its service (not timed), then times the next request of the page with
the CPU time of this process (time.process_time: waiting on PostgreSQL or Redis does not count), then takes the
write back (not timed either; the next write makes the page a render again). Every page's median over the rounds,
against the median of the bare page (bench/bare_urls.py) measured in the same rounds. The writes stay in
the database only for the moment of one request: each is taken back before the next round.
"""

import argparse
import cProfile
import datetime
import json
import os
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

import django  # noqa: E402

django.setup()

from django.db.models import Count  # noqa: E402
from django.test import Client, override_settings  # noqa: E402
from django.utils import timezone  # noqa: E402

from apps.accounts.models import User  # noqa: E402
from apps.challenges.models import Dip, UserChallenge  # noqa: E402
from apps.challenges.services.dip_changes import dip_delete  # noqa: E402
from apps.challenges.services.dips import dip_register  # noqa: E402
from apps.demo.load_data import BENCH_MEMBER_EMAIL  # noqa: E402
from apps.demo.load_data.common import member_email  # noqa: E402
from apps.events.models import Event  # noqa: E402
from apps.events.services import event_leave, event_sign_up  # noqa: E402
from apps.together.services import meetup_cancel, meetup_propose  # noqa: E402

BARE = "/bench/kaal"
GOAL_TIMES_BARE = 5.0

Undo = Callable[[], None]


def _member(number: int) -> User:
    return User.objects.get(email=member_email(number))


MILESTONES = (5, 10, 25, 50, 75, 100)


def typical_member() -> User:
    """The visitor: a member whose next dip is an ordinary one (no badge, no completed card), as most dips
    are; the bench member (lid0001) is at 99 of 100, so her every dip would be the card's last."""
    for card in (
        UserChallenge.objects.filter(is_active=True, completed_at__isnull=True, user__email__startswith="lid")
        .annotate(dip_total=Count("dips"))
        .select_related("user")
        .order_by("user__email")
    ):
        today = Dip.objects.filter(user=card.user, dip_date=timezone.localdate()).exists()
        if card.dip_total + 1 not in MILESTONES and card.dip_total >= 20 and not today:
            return card.user
    raise SystemExit("geen lid met een gewone volgende plons: geen meting")


def _today_dip_removed(user: User) -> None:
    """A dip of today is what the bench adds: one already there (an earlier, interrupted run) goes first."""
    for dip_id in Dip.objects.filter(user=user, dip_date=timezone.localdate()).values_list("pk", flat=True):
        dip_delete(dip_id=dip_id)


def _dip_by(number: int | None) -> Callable[[], Undo]:
    """A dip of the visitor (None) or of the load member `number`."""

    def write() -> Undo:
        user = VISITOR[0] if number is None else _member(number)
        _today_dip_removed(user)
        dip = dip_register(user=user).dip
        return lambda: dip_delete(dip_id=dip.pk)

    return write


def _sign_up() -> Undo:
    user = VISITOR[0]
    event = (
        Event.objects.filter(event_date__gt=timezone.now(), cancelled_at__isnull=True, is_active=True)
        .exclude(participants__user=user)
        .order_by("event_date")
        .first()
    )
    if event is None:
        raise SystemExit("geen komend evenement zonder het bench-lid: geen meting van /samen na een aanmelding")
    event_sign_up(user=user, event_id=event.pk)
    return lambda: event_leave(user=user, event_id=event.pk) and None


def _meetup() -> Undo:
    user = _member(3)
    meetup = meetup_propose(
        user=user, starts_at=timezone.now() + datetime.timedelta(days=1), place="Bench-steiger", note="meting"
    )
    return lambda: meetup_cancel(user=user, meetup_id=meetup.pk) and None


def _nothing() -> Undo:
    return lambda: None


VISITOR: list[User] = []  # typical_member(), chosen at the start

# (url, the write before it, that write in the report); the visitor visits every page.
PAGES: list[tuple[str, Callable[[], Undo], str]] = [
    (BARE, _nothing, ""),
    ("/dashboard", _dip_by(None), "her dip"),
    ("/challenge", _dip_by(None), "her dip"),
    ("/statistieken", _dip_by(None), "her dip"),
    ("/account", _dip_by(None), "her dip"),
    ("/club", _dip_by(2), "another member's dip"),
    # The plan list (events and plonsafspraken; /events only leads there): after her sign-up for an event, and
    # after another member's afspraak. The same page: `na` is not in its key, only in this bench's names.
    ("/samen", _sign_up, "her sign-up for an event"),
    ("/samen?na=afspraak", _meetup, "an afspraak"),
]
WRITTEN_BEFORE = {url: write_said for url, _write, write_said in PAGES}


def _cpu_ms(client: Client, url: str) -> float:
    started = time.process_time()
    response = client.get(url, secure=True, HTTP_HOST="127.0.0.1")
    spent = (time.process_time() - started) * 1000
    if response.status_code != 200:
        raise SystemExit(f"{url} antwoordt {response.status_code} in plaats van 200: geen meting")
    return spent


def measure(*, rounds: int, only: set[str] | None = None) -> dict:
    client = Client()
    client.force_login(VISITOR[0])
    pages = [(url, write) for url, write, _said in PAGES if only is None or url in only or url == BARE]
    samples: dict[str, list[float]] = {url: [] for url, _ in pages}
    cached: dict[str, list[float]] = {url: [] for url, _ in pages}
    for url, _ in pages:  # warm: templates, URL resolver, manifest
        client.get(url, secure=True, HTTP_HOST="127.0.0.1")
    for _ in range(rounds):
        for url, write in pages:
            # First the page as the member last saw it (the other pages' writes changed it too), then her
            # write: the timed visit renders what this write changed, nothing more.
            client.get(url, secure=True, HTTP_HOST="127.0.0.1")
            undo = write()
            try:
                samples[url].append(_cpu_ms(client, url))
                cached[url].append(_cpu_ms(client, url))  # the same page again: from the page cache
            finally:
                undo()
    bare = statistics.median(samples[BARE])
    return {
        "rounds": rounds,
        "pages": {
            url: {
                "cpu_ms": round(statistics.median(samples[url]), 3),
                "times_bare": round(statistics.median(samples[url]) / bare, 2),
                "cached_times_bare": round(statistics.median(cached[url]) / bare, 2),
                "goal_times_bare": None if url == BARE else GOAL_TIMES_BARE,
                "after": WRITTEN_BEFORE[url],
            }
            for url, _ in pages
        },
    }


def profile(url: str, *, rounds: int) -> None:
    client = Client()
    client.force_login(VISITOR[0])
    write = {page: write for page, write, _said in PAGES}[url]
    client.get(url, secure=True, HTTP_HOST="127.0.0.1")
    profiler = cProfile.Profile(time.process_time)  # CPU, as the bench counts it
    for _ in range(rounds):
        client.get(url, secure=True, HTTP_HOST="127.0.0.1")
        undo = write()
        profiler.enable()
        client.get(url, secure=True, HTTP_HOST="127.0.0.1")
        profiler.disable()
        undo()
    # PROFILE_SORT=tottime: where the time is spent itself; PROFILE_LINES: how many lines.
    stats = pstats.Stats(profiler).sort_stats(os.environ.get("PROFILE_SORT", "cumulative"))
    stats.print_stats(int(os.environ.get("PROFILE_LINES", "60")))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--only", nargs="*", help="URLs to measure (the bare page always)")
    parser.add_argument("--out")
    parser.add_argument("--profile", help="one URL: cProfile its renders after the write, by cumulative time")
    parser.add_argument("--bench-member", action="store_true", help="lid0001 visits: her dip is her card's 100th")
    args = parser.parse_args()
    VISITOR.append(User.objects.get(email=BENCH_MEMBER_EMAIL) if args.bench_member else typical_member())
    if args.profile:
        with override_settings(ROOT_URLCONF="bench.bare_urls"):
            profile(args.profile, rounds=args.rounds)
        return
    with override_settings(ROOT_URLCONF="bench.bare_urls"):
        result = measure(rounds=args.rounds, only=set(args.only) if args.only else None)
    print(f"load average {os.getloadavg()[0]:.1f}; visitor {VISITOR[0].email}")
    print("| URL (after its write) | CPU ms, rendered | × bare | × bare, next visit (cached) | goal |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for url, page in result["pages"].items():
        goal = f"≤ {page['goal_times_bare']:g}×" if page["goal_times_bare"] else "-"
        after = f" ({page['after']})" if page["after"] else ""
        print(
            f"| `{url}`{after} | {page['cpu_ms']:.2f} | {page['times_bare']:.2f} | {page['cached_times_bare']:.2f} "
            f"| {goal} |"
        )
    if args.out:
        extra = {"load_average": os.getloadavg()[0], "visitor": VISITOR[0].email}
        Path(args.out).write_text(json.dumps({**result, **extra}, indent=2))


if __name__ == "__main__":
    main()
