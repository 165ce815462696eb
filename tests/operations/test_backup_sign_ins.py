"""A backup is not a sign-in, and a restore forgets what belongs to the lost timeline: `manage.py backup` and
`restore` as the operator runs them (production settings, `make run`'s SQLite file, Redis).

The archive holds no session row, no authenticator-app secret in clear and no expired invitation code; after a
restore with the same MFA_ENCRYPTION_KEY the member's authenticator app still verifies, no session, no export
and no invitation that expired since the backup is left, and Redis is empty. A Redis that cannot be emptied
stops the restore with a message (emptied past the cache's fallback, which would make it look like a miss);
with another MFA_ENCRYPTION_KEY the secret is of no use.
"""

import io
import secrets
import sqlite3
import tarfile

import redis

from tests.factories import TOTP_SECRET
from tests.redis_states import TEST_REDIS_URL, require_redis

from .drill import manage, site_env

MFA_KEY = "f" * 64
SETUP = f"""
import datetime
from allauth.mfa.totp.internal.auth import TOTP
from django.contrib.sessions.backends.db import SessionStore
from django.utils import timezone
from apps.accounts.models import User
from apps.invitations.models import Invitation
from apps.logbook.models import MemberExport
now = timezone.now()
member = User.objects.create_user(email='app@example.nl', password='x')
TOTP.activate(member, '{TOTP_SECRET}')
session = SessionStore()
session['_auth_user_id'] = str(member.pk)
session.create()
days = datetime.timedelta(days=1)
Invitation.objects.create(code='VERLOPEN', created_at=now - 40 * days, expires_at=now - 10 * days)
Invitation.objects.create(code='GELDIG12', created_at=now, expires_at=now + datetime.timedelta(days=30))
Invitation.objects.create(code='LATER123', created_at=now, expires_at=now + datetime.timedelta(days=30))
MemberExport.objects.create(user=member, status='ready', file_name='1-abc.zip', ready_at=now)
"""
VERIFY = f"""
import time
from allauth.mfa.models import Authenticator
from allauth.mfa.totp.internal.auth import TOTP, format_hotp_value, hotp_value
from django.contrib.sessions.models import Session
from apps.invitations.models import Invitation
from apps.logbook.models import MemberExport
code = format_hotp_value(hotp_value('{TOTP_SECRET}', int(time.time()) // 30))
print(TOTP(Authenticator.objects.get(type='totp')).validate_code(code), Session.objects.count(),
      MemberExport.objects.count(), sorted(Invitation.objects.values_list('code', flat=True)))
"""


def _verified(env) -> str:
    return manage("shell", "-c", VERIFY, env=env).stdout.strip().splitlines()[-1]


def _database(archive, scratch):
    with tarfile.open(archive) as tar:
        data = tar.extractfile("database.sqlite3").read()
    (scratch / "archived.sqlite3").write_bytes(data)
    return data, scratch / "archived.sqlite3"


def _expire_since_the_backup(archive, scratch) -> None:
    """The archive as if GELDIG12 expired between the backup and the restore (the counts stay the same)."""
    with tarfile.open(archive) as tar:
        members = [(member, tar.extractfile(member).read()) for member in tar.getmembers()]
    with tarfile.open(archive, "w", format=tarfile.PAX_FORMAT) as tar:
        for member, data in members:
            if member.name == "database.sqlite3":
                (scratch / "copy.sqlite3").write_bytes(data)
                with sqlite3.connect(scratch / "copy.sqlite3") as db:
                    db.execute(
                        "UPDATE invitations_invitation SET created_at = '2020-01-01 00:00:00',"
                        " expires_at = '2020-01-31 00:00:00' WHERE code = 'GELDIG12'"
                    )
                db.close()
                data = (scratch / "copy.sqlite3").read_bytes()
                member.size = len(data)
            tar.addfile(member, io.BytesIO(data))


def test_a_backup_is_not_a_sign_in_and_a_restore_forgets_the_lost_timeline(tmp_path):
    require_redis()
    env = site_env(
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        MFA_ENCRYPTION_KEY=MFA_KEY,
        DATABASE_URL=f"sqlite:///{tmp_path / 'site.sqlite3'}",
        MEDIA_ROOT=str(tmp_path / "media"),
        BACKUP_DIR=str(tmp_path / "backups"),
        REDIS_URL=TEST_REDIS_URL,
    )
    manage("migrate", "--noinput", "-v", "0", env=env)
    manage("shell", "-c", SETUP, env=env)
    manage("backup", env=env)
    (archive,) = (tmp_path / "backups").glob("koud-backup-*.tar")

    data, archived = _database(archive, tmp_path)
    assert TOTP_SECRET.encode() not in data  # encrypted, with a key that is not in the archive
    with sqlite3.connect(archived) as db:
        assert db.execute("SELECT count(*) FROM django_session").fetchone() == (0,)
        assert db.execute("SELECT count(*) FROM mfa_authenticator WHERE type = 'totp'").fetchone() == (1,)
        codes = [code for (code,) in db.execute("SELECT code FROM invitations_invitation ORDER BY code")]
    db.close()
    assert codes == ["GELDIG12", "LATER123"]  # the expired one is not exported

    _expire_since_the_backup(archive, tmp_path)
    stale = redis.Redis.from_url(TEST_REDIS_URL)
    stale.set("koud-verloren-tijdlijn", "pagina van na de back-up")
    restored = {**env, "DATABASE_URL": f"sqlite:///{tmp_path / 'restored.sqlite3'}", "MEDIA_ROOT": str(tmp_path / "m2")}
    assert "Herstel klaar" in manage("restore", str(archive), env=restored).stdout
    assert stale.get("koud-verloren-tijdlijn") is None
    assert _verified(restored) == "True 0 0 ['LATER123']"

    # Redis that does not answer: the restore says so (the cache's fallback would have made it a miss).
    dead = {**restored, "DATABASE_URL": f"sqlite:///{tmp_path / 'third.sqlite3'}", "MEDIA_ROOT": str(tmp_path / "m3")}
    dead["REDIS_URL"] = "redis://127.0.0.1:9/0"
    refused = manage("restore", str(archive), env=dead, check=False)
    assert refused.returncode != 0 and "kon niet worden geleegd" in refused.stderr and "FLUSHDB" in refused.stderr
    # Without the MFA key the archive's secret is of no use.
    other_key = {**dead, "REDIS_URL": "", "MFA_ENCRYPTION_KEY": "e" * 64}
    assert _verified(other_key).startswith("False")
