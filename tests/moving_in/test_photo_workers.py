"""Several processes share the photo pass (each every n-th waiting photo); together they do each photo once.
On committed data (transactional_db): the worker processes have their own connections."""

import asyncio
import os

import pytest
from django.db import connection, connections

from apps.challenges.models import Dip
from apps.moving_in import photos
from apps.moving_in.models import ImportedObject

from .test_photos import assert_clean_upright


@pytest.mark.django_db(transaction=True)
def test_two_photo_workers_share_the_pass(small_club, photo_dir, run_import):
    run_import(database_url=small_club.url)
    out = run_import(only_photos=True, photos=str(photo_dir), photo_workers=2)
    assert "Foto's: 4 gevonden, 2 geïmporteerd" in out
    assert sorted(ImportedObject.objects.exclude(photo_status="").values_list("photo_status", flat=True)) == [
        "broken",
        "done",
        "done",
        "missing",
    ]
    for dip in Dip.objects.exclude(photo=""):
        assert_clean_upright(dip)


@pytest.mark.django_db(transaction=True)
def test_photo_workers_never_use_a_connection_they_inherited(small_club, photo_dir, run_import, monkeypatch, tmp_path):
    """Each worker talks to PostgreSQL over a session of its own, also when the pass starts inside a running event
    loop (as in a process that drives a browser): Django then keeps that loop's connections apart from the thread's,
    and a forked worker, in which no loop runs, would find the thread's open one and share its socket."""
    run_import(database_url=small_club.url)
    connection.ensure_connection()  # the thread's own session, open while the pass runs
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        [(parent_session,)] = cursor.fetchall()

    sessions = tmp_path / "sessions"
    real_one = photos._one

    def one_noting_its_session(source, row, report):  # runs in the worker: its session, by the worker's pid
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            [(session,)] = cursor.fetchall()
        with sessions.open("a") as noted:
            noted.write(f"{os.getpid()} {session}\n")
        return real_one(source, row, report)

    monkeypatch.setattr(photos, "_one", one_noting_its_session)
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

    async def pass_in_a_running_loop():
        try:
            return run_import(only_photos=True, photos=str(photo_dir), photo_workers=2)
        finally:
            connections.close_all()  # the loop's own, which its end would leave open

    try:
        asyncio.get_running_loop()  # after the browser tests one already runs in this thread
    except RuntimeError:
        out = asyncio.run(pass_in_a_running_loop())
    else:
        out = run_import(only_photos=True, photos=str(photo_dir), photo_workers=2)
    assert "Foto's: 4 gevonden, 2 geïmporteerd" in out
    by_worker: dict[str, set[str]] = {}
    for line in sessions.read_text().splitlines():
        worker, session = line.split()
        by_worker.setdefault(worker, set()).add(session)
    workers_sessions = list(by_worker.values())  # Carla's three photos in a row: both workers get one
    assert len(workers_sessions) == 2 and all(len(one) == 1 for one in workers_sessions)
    [first], [second] = workers_sessions
    assert first != second and str(parent_session) not in {first, second}
