"""A club moving in from the original app: time and peak memory of `import_supabase`, data and photos.

Goal (issue 33): a club of 300 members, 20,000 dips and 2,000 photos in under 10 minutes on a 2-core
machine, in under 500 MB of memory (photos streamed, one at a time). The old app's database is built in a
database of its own (tests/moving_in/supabase_shape.sql), the bucket as a folder of 12 MP phone photos with
EXIF (a handful of distinct files, hard-linked under every key: each is decoded anyway), and the import runs
in a fresh process against a freshly migrated database, so a second bench run measures the same work.

    .venv/bin/python bench/import.py                           # full size
    .venv/bin/python bench/import.py --members 30 --dips 2000 --photos 200 --out FILE.json
"""

import argparse
import datetime
import io
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402
from PIL import Image  # noqa: E402

from tests.moving_in.source_club import (  # noqa: E402
    PUBLIC_URL,
    bcrypt_hash,
    server_url,
    source_database_create,
    source_database_drop,
)

GOAL_SECONDS = 600
GOAL_PEAK_MB = 500
UTC = datetime.UTC


def phone_photo(seed: int, side: int) -> bytes:
    """A 4:3 photo with noise (so it compresses like a real one) and EXIF orientation and GPS."""
    width, height = side, side * 3 // 4
    noise = Image.effect_noise((width // 4, height // 4), 60 + seed).convert("RGB").resize((width, height))
    exif = Image.Exif()
    exif[0x0112] = 6
    exif[0x8825] = {1: "N", 2: (52.0, 22.0, 30.0), 3: "E", 4: (4.0, 53.0, 40.0)}
    out = io.BytesIO()
    noise.save(out, format="JPEG", quality=88, exif=exif.tobytes())
    return out.getvalue()


def fill(url: str, photo_dir: Path, *, members: int, dips: int, photos: int, side: int) -> None:
    rng = random.Random(33)
    templates = []
    for n in range(8):
        path = photo_dir / f"_template_{n}.jpg"
        path.write_bytes(phone_photo(n, side))
        templates.append(path)
    hashed = bcrypt_hash("ijskoud-oud")  # one hash for all: the import never checks it
    start = datetime.datetime(2025, 1, 1, 7, 0, tzinfo=UTC)
    # Dips per member: uneven, as in a club (a few over the target of 100).
    weights = [rng.paretovariate(1.5) for _ in range(members)]
    per_member = [max(1, int(dips * w / sum(weights))) for w in weights]
    per_member[0] += dips - sum(per_member)
    photo_every = max(1, dips // max(photos, 1))
    with psycopg.connect(url) as conn:
        water = uuid.uuid4()
        conn.execute(
            "INSERT INTO public.challenges (id, name, category, target_dips) VALUES (%s, %s, 'waterdieren', 100)",
            [water, "Waterdieren Stempelkaart"],
        )
        with conn.cursor() as cur:
            users = [uuid.uuid4() for _ in range(members)]
            with cur.copy(
                "COPY auth.users (id, email, encrypted_password, raw_user_meta_data, created_at) FROM STDIN"
            ) as c:
                for i, uid in enumerate(users):
                    meta = json.dumps({"full_name": f"Oud lid {i}", "newsletter_consent": i % 3 == 0})
                    c.write_row((uid, f"oud{i:04d}@import.koudwater.test", hashed, meta, start))
            with cur.copy("COPY auth.identities (provider_id, user_id, provider) FROM STDIN") as c:
                for uid in users:
                    c.write_row((str(uid), uid, "email"))
            with cur.copy(
                "COPY public.profiles (id, email, full_name, created_at, newsletter_consent) FROM STDIN"
            ) as c:
                for i, uid in enumerate(users):
                    c.write_row((uid, f"oud{i:04d}@import.koudwater.test", f"Oud lid {i}", start, i % 3 == 0))
            cards = [uuid.uuid4() for _ in users]
            with cur.copy(
                "COPY public.user_challenges (id, user_id, challenge_id, is_active, challenge_type, created_at)"
                " FROM STDIN"
            ) as c:
                for uid, card in zip(users, cards, strict=True):
                    c.write_row((card, uid, water, True, "waterdieren", start))
            n = 0
            with cur.copy(
                "COPY public.dips (user_id, user_challenge_id, dip_date, photo_url, created_at) FROM STDIN"
            ) as c:
                for uid, card, count in zip(users, cards, per_member, strict=True):
                    for k in range(count):
                        moment = start + datetime.timedelta(days=k, minutes=n % 600)
                        url_ = None
                        if n % photo_every == 0 and n // photo_every < photos:
                            key = f"{uid}/{int(moment.timestamp() * 1000)}{k}.jpg"
                            target = photo_dir / key
                            target.parent.mkdir(exist_ok=True)
                            os.link(templates[n % len(templates)], target)
                            url_ = PUBLIC_URL + key
                        c.write_row((uid, card, moment.date(), url_, moment))
                        n += 1
        conn.commit()


def migrated_target(server: str) -> str:
    name = f"koud_import_target_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(server_url(server, "postgres"), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = server_url(server, name)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        check=True,
        env={**os.environ, "DATABASE_URL": url},
    )
    return url


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--members", type=int, default=int(os.environ.get("BENCH_IMPORT_MEMBERS", 300)))
    parser.add_argument("--dips", type=int, default=int(os.environ.get("BENCH_IMPORT_DIPS", 20000)))
    parser.add_argument("--photos", type=int, default=int(os.environ.get("BENCH_IMPORT_PHOTOS", 2000)))
    parser.add_argument("--side", type=int, default=4032, help="long side of the photos (4032: 12 MP)")
    parser.add_argument("--workers", type=int, default=int(os.environ.get("BENCH_IMPORT_WORKERS", 2)))
    parser.add_argument("--out")
    args = parser.parse_args()
    # make bench runs it with production settings; alone, the local ones without debug (debug keeps every
    # query in memory) and photos in a scratch folder that goes afterwards.
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    os.environ.setdefault("DJANGO_DEBUG", "false")
    os.environ["PHOTO_STORAGE"] = "local"
    server = os.environ.get("DATABASE_URL", "postgres://root@127.0.0.1:5432/koud_bench")
    source_name, source_url = source_database_create(server)
    target_url = migrated_target(server)
    try:
        with tempfile.TemporaryDirectory(prefix="koud-import-bench-") as tmp:
            photo_dir = Path(tmp) / "dip_photos"
            photo_dir.mkdir()
            media = Path(tmp) / "media"
            filled = time.monotonic()
            fill(source_url, photo_dir, members=args.members, dips=args.dips, photos=args.photos, side=args.side)
            fill_s = time.monotonic() - filled
            report = Path(tmp) / "report.json"
            load_before = Path("/proc/loadavg").read_text().split()[0]
            began = time.monotonic()
            run = _run_sampled(  # noqa: S603 - our own manage.py
                [
                    sys.executable,
                    "manage.py",
                    "import_supabase",
                    "--database-url",
                    source_url,
                    "--photos",
                    str(photo_dir),
                    "--report",
                    str(report),
                    "--photo-workers",
                    str(args.workers),
                ],
                cwd=ROOT,
                env={**os.environ, "DATABASE_URL": target_url, "MEDIA_ROOT": str(media)},
            )
            seconds = time.monotonic() - began
            returncode, peak_mb, cpu_s, output = run
            if returncode:
                print(output, file=sys.stderr)
                return 1
            entities = json.loads(report.read_text())["entities"]
    finally:
        source_database_drop(server, source_name)
        source_database_drop(server, urlsplit_name(target_url))
    row = {
        "members": args.members,
        "dips": args.dips,
        "photos": args.photos,
        "photo_side": args.side,
        "photo_workers": args.workers,
        "seconds": round(seconds, 1),
        # Wall time depends on what else runs on the machine; the CPU time much less: on an idle machine with
        # as many cores as workers the photo pass takes about its CPU time divided by the workers.
        "cpu_seconds": round(cpu_s, 1),
        "loadavg_before": load_before,
        "peak_mb": round(peak_mb),
        "fill_seconds": round(fill_s, 1),
        "imported": {name: e["imported"] for name, e in entities.items()},
        "cpus": os.cpu_count(),
        "goal_seconds": GOAL_SECONDS,
        "goal_peak_mb": GOAL_PEAK_MB,
        "met": seconds < GOAL_SECONDS and peak_mb < GOAL_PEAK_MB,
    }
    print("| members | dips | photos | seconds | CPU seconds | peak MB | goal |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    print(
        f"| {args.members} | {args.dips} | {args.photos} | {row['seconds']} | {row['cpu_seconds']} "
        f"| {row['peak_mb']} | "
        f"{'gehaald' if row['met'] else 'NIET gehaald'} (< {GOAL_SECONDS} s, < {GOAL_PEAK_MB} MB) |"
    )
    print(json.dumps(row))
    if args.out:
        Path(args.out).write_text(json.dumps(row, indent=2))
    return 0


def _tree_rss_mb(root: int) -> float:
    """Memory of a process and all its descendants (the photo workers), from /proc."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            parents[int(stat.parent.name)] = int(fields[1])
        except (OSError, IndexError, ValueError):
            continue
    tree, grew = {root}, True
    while grew:
        more = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree |= more
        grew = bool(more)
    total_kb = 0
    for pid in tree:
        try:  # PSS: a page the forked workers share with their parent counts once, split between them
            rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
            total_kb += int(next(line.split()[1] for line in rollup.splitlines() if line.startswith("Pss:")))
        except (OSError, StopIteration, IndexError, ValueError):
            continue
    return total_kb / 1024


def _run_sampled(command: list[str], *, cwd, env) -> tuple[int, float, float, str]:
    """Run `command`, sampling the memory (PSS) of its whole process tree; returns (exit code, peak MB, CPU
    seconds of the tree (the photo workers included), output)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryFile("w+") as output:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=output, stderr=subprocess.STDOUT)  # noqa: S603
        peak = 0.0
        while process.poll() is None:
            peak = max(peak, _tree_rss_mb(process.pid))
            time.sleep(0.2)
        output.seek(0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return process.returncode, peak, cpu, output.read()


def urlsplit_name(url: str) -> str:
    return url.rsplit("/", 1)[1]


if __name__ == "__main__":
    sys.exit(main())
