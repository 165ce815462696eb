"""Back up and restore the load club (seed_load_data: 2,000 members, 100,000 dips, 2,000 photos): time and
peak memory, each step in a fresh process. A step of `make bench` (BENCH_BACKUP=0 skips it).

Goals (issue 32 §3): a backup and a restore each under 2 minutes on a 2-core machine, and the backup's memory
flat whatever the number of photos.

- Time: the load club's photos at the size the server keeps them (a 2048 px JPEG of ~500 KB and a 480 px
  thumbnail; the seeded files are 64 px stand-ins), then `manage.py backup` and `manage.py restore` into a
  new database (`<DATABASE_URL>_restore`) and media folder. The photo files are hard links to a few real
  JPEGs: every byte is written to the archive and back, the reads come from the page cache.
- Memory: peak resident memory (ru_maxrss) of the backup process with the same database and 200, 2,000 and
  20,000 photos (each a photo and a thumbnail file). pg_dump and pg_restore run beside it, not counted.

    DATABASE_URL=postgres://…/koud_bench MEDIA_ROOT=… .venv/bin/python bench/backup.py [--out FILE.json]
"""

import argparse
import io
import json
import os
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

GOAL_SECONDS = 120
PHOTO_COUNTS = (200, 2000, 20000)


def _child(step: str, argument: str) -> None:
    """One step in this (fresh) process; prints its time and peak memory as JSON."""
    import django

    django.setup()
    from django.core.management import call_command

    started = time.monotonic()
    out = io.StringIO()
    if step == "backup":
        call_command("backup", dir=Path(argument), keep=100, stdout=out)
    else:
        call_command("restore", argument, stdout=out)
    seconds = time.monotonic() - started
    # This process only: pg_dump and pg_restore run beside it (their ru_maxrss would count the fork's copy).
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "peak_mb": own, "output": out.getvalue()}))


def _run_step(step: str, argument: str, **env: str) -> dict:
    done = subprocess.run(  # noqa: S603 - this script, our arguments
        [sys.executable, __file__, "--child", step, argument],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{step} failed:\n{done.stdout}\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _jpeg(size: tuple[int, int], seed: int) -> bytes:
    from PIL import Image

    noise = Image.effect_noise(size, 10 + seed).convert("RGB")
    gradient = Image.linear_gradient("L").resize(size).convert("RGB")
    out = io.BytesIO()
    Image.blend(noise, gradient, 0.5).save(out, format="JPEG", quality=85)
    return out.getvalue()


def _photo_paths(media: Path) -> list[tuple[Path, Path]]:
    """(photo, thumbnail) of every seeded load photo, relative to MEDIA_ROOT."""
    folder = media / "dip_photos"
    photos = sorted(p for p in folder.rglob("*.jpg") if not p.name.endswith(".thumb.jpg"))
    return [(p.relative_to(media), p.with_name(p.name[:-4] + ".thumb.jpg").relative_to(media)) for p in photos]


def _media_set(target: Path, pairs: list[tuple[Path, Path]], *, count: int, sources: list[tuple[Path, Path]]):
    """A media folder with `count` photos at `pairs`' paths (repeated under copy-N/ past their number), each a
    hard link to one of `sources` (photo, thumbnail)."""
    shutil.rmtree(target, ignore_errors=True)
    for index in range(count):
        photo, thumbnail = pairs[index % len(pairs)]
        copy = index // len(pairs)
        for relative, source in (
            (photo, sources[index % len(sources)][0]),
            (thumbnail, sources[index % len(sources)][1]),
        ):
            path = target / (f"copy-{copy}" if copy else "") / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            os.link(source, path)


def _database_recreate(url: str, *, create: bool = True) -> None:
    import psycopg
    from psycopg import sql

    name = urlparse(url).path.lstrip("/")
    with psycopg.connect(url.replace(f"/{name}", "/postgres", 1), autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        if create:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def _restored_counts(url: str) -> dict:
    import psycopg

    with psycopg.connect(url) as conn:
        members, dips, photos = conn.execute(
            "SELECT (SELECT count(*) FROM accounts_user), count(*), count(*) FILTER (WHERE photo <> '') "
            "FROM challenges_dip"
        ).fetchone()
    return {"members": members, "dips": dips, "photos": photos}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path)
    parser.add_argument("--child", nargs=2, metavar=("STEP", "ARGUMENT"))
    parser.add_argument("--quick", action="store_true", help="a try of the script: 200 photos at most")
    options = parser.parse_args()
    if options.child:
        _child(*options.child)
        return

    database = os.environ["DATABASE_URL"]
    media = Path(os.environ["MEDIA_ROOT"])
    pairs = _photo_paths(media)[: 200 if options.quick else None]
    counts = (20, 200) if options.quick else PHOTO_COUNTS
    if not pairs:
        raise SystemExit(f"no load photos under {media}/dip_photos: run seed_load_data first")
    work = Path(tempfile.mkdtemp(prefix="koud-bench-backup-", dir=media.parent))
    rows: dict = {"photos_seeded": len(pairs)}
    try:
        real = work / "real"
        real.mkdir()
        sources = []
        for seed in range(4):
            photo, thumbnail = real / f"{seed}.jpg", real / f"{seed}.thumb.jpg"
            photo.write_bytes(_jpeg((2048, 1536), seed))
            thumbnail.write_bytes(_jpeg((480, 360), seed))
            sources.append((photo, thumbnail))
        tiny = [(media / photo, media / thumbnail) for photo, thumbnail in pairs[:4]]

        # Memory against the number of photos (small files: what grows with the count is per file).
        rows["memory"] = []
        for count in counts:
            _media_set(work / "media", pairs, count=count, sources=tiny)
            step = _run_step("backup", str(work / f"backups-{count}"), MEDIA_ROOT=str(work / "media"))
            rows["memory"].append({"photos": count, **{k: v for k, v in step.items() if k != "output"}})
            shutil.rmtree(work / f"backups-{count}")
            print(f"   backup, {count:>6} photos: peak {step['peak_mb']:.1f} MB, {step['seconds']:.1f} s", flush=True)

        # Time: the load club with its photos at full size.
        _media_set(work / "media", pairs, count=len(pairs), sources=sources)
        backup = _run_step("backup", str(work / "backups"), MEDIA_ROOT=str(work / "media"))
        (archive,) = (work / "backups").glob("koud-backup-*.tar")
        rows["backup"] = {**backup, "archive_mb": archive.stat().st_size / 1_000_000, "photos": len(pairs)}
        print(
            f"   backup:  {backup['seconds']:.1f} s, archive {rows['backup']['archive_mb']:.0f} MB, "
            f"peak {backup['peak_mb']:.0f} MB",
            flush=True,
        )

        target = f"{database}_restore"
        _database_recreate(target)
        restore = _run_step("restore", str(archive), DATABASE_URL=target, MEDIA_ROOT=str(work / "restored"))
        files = sum(1 for p in (work / "restored").rglob("*") if p.is_file())
        with tarfile.open(archive) as tar:
            archived = json.load(tar.extractfile("manifest.json"))["counts"]  # type: ignore[arg-type]
        restored = _restored_counts(target)
        if restored != archived or files != 2 * len(pairs):
            raise SystemExit(f"restore incomplete: {restored} in the database, {files} files; archived {archived}")
        rows["restore"] = {**restore, "files": files, "counts": restored}
        print(f"   restore: {restore['seconds']:.1f} s, {files} files, peak {restore['peak_mb']:.0f} MB", flush=True)
        rows["goal_seconds"] = GOAL_SECONDS
        rows["loadavg"] = open("/proc/loadavg").read().split()[:3]
    finally:
        shutil.rmtree(work, ignore_errors=True)
        _database_recreate(f"{database}_restore", create=False)
    if options.out:
        options.out.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
