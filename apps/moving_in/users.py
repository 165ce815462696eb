"""Members: auth.users with their profile, their password hash, and the admin role."""

import json

from django.contrib.auth.hashers import make_password
from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from apps.accounts.models import User, UserRole

from .context import ImportContext, Kind
from .errors import EmailConflicts
from .hashers import imported_hash, is_bcrypt_hash
from .report import person
from .source import SourceData

NAME_MAX_LENGTH: int = User._meta.get_field("full_name").max_length or 150

SKIP_DELETED = "verwijderd in de oude app"
SKIP_ANONYMOUS = "anoniem account"
SKIP_NO_EMAIL = "geen geldig e-mailadres"
SKIP_CONFLICT = "e-mailadres heeft hier al een account (--on-conflict skip)"
SKIP_CONFLICT_DRY = "e-mailadres heeft hier al een account (de import zou stoppen: --on-conflict refuse)"
SKIP_DUPLICATE = "e-mailadres dubbel in de oude app"
MERGED_DUPLICATE = "e-mailadres dubbel in de oude app: samengevoegd in het oudste account (--merge-duplicates)"
MERGED = "samengevoegd met het bestaande account (--on-conflict merge)"
SKIP_ROLE_MEMBER = "lid niet geïmporteerd"


def _meta(row: dict) -> dict:
    meta = row.get("raw_user_meta_data") or {}
    if isinstance(meta, str):
        try:
            meta = json.loads(meta)
        except ValueError:
            meta = {}
    return meta if isinstance(meta, dict) else {}


def _password(row: dict, providers: set[str]) -> str | None:
    """The stored form of the member's password, or None when the old app had no usable one."""
    encrypted = (row.get("encrypted_password") or "").strip()
    if not is_bcrypt_hash(encrypted):  # empty, $argon2…, or something else
        return None
    if providers and "email" not in providers:
        return None
    return imported_hash(encrypted)


def _email(row: dict, profile: dict) -> str | None:
    email = (row.get("email") or profile.get("email") or "").strip().lower()
    try:
        validate_email(email)
    except ValidationError:
        return None
    return email


def import_users(ctx: ImportContext, data: SourceData) -> None:
    report = ctx.report
    profiles = {str(p["id"]): p for p in data.rows("profiles")}
    providers: dict[str, set[str]] = {}
    for identity in data.rows("auth.identities"):
        providers.setdefault(str(identity["user_id"]), set()).add(identity["provider"])
    # The oldest account first: of two with one address (in other capitals) the oldest is the member's.
    rows = sorted(data.rows("auth.users"), key=lambda row: _joined(row, profiles.get(str(row["id"]), {}), ctx))
    for row in rows:
        profile = profiles.get(str(row["id"]), {})
        report.people[str(row["id"])] = person(_full_name(row, profile), _email(row, profile) or row.get("email") or "")
    existing = {
        email.lower(): pk
        for pk, email in User.objects.filter(
            email__in=[(r.get("email") or "").strip().lower() for r in rows if r.get("email")]
        ).values_list("pk", "email")
    }
    # E-mail conflicts first: with refuse, nothing may be written.
    conflicts = []
    seen_emails: dict[str, str] = {}  # address -> the old id of its oldest account
    duplicates: dict[str, str] = {}  # old id -> the old id of the oldest account with its address
    plan: list[tuple[dict, str]] = []
    for row in rows:
        old_id = str(row["id"])
        report.found("users")
        profile = profiles.get(old_id, {})
        email = _email(row, profile)
        if (new_id := ctx.seen(Kind.USER, old_id)) is not None:
            ctx.members[old_id] = new_id
            seen_emails.setdefault(email or "", old_id)
            report.already("users")
            continue
        if row.get("deleted_at"):
            report.skipped("users", SKIP_DELETED)
        elif row.get("is_anonymous"):
            report.skipped("users", SKIP_ANONYMOUS)
        elif email is None:
            report.skipped("users", SKIP_NO_EMAIL)
        elif email in seen_emails:
            if ctx.merge_duplicates:
                duplicates[old_id] = seen_emails[email]
            else:
                report.skipped("users", SKIP_DUPLICATE)
                report.anomaly("email_duplicate", old_id, row.get("email") or email, member=old_id)
        else:
            seen_emails[email] = old_id
            if email in existing:
                conflicts.append(email)
                report.anomaly("email_conflict", old_id, member=old_id)
            plan.append((row, email))
    if conflicts and ctx.on_conflict == "refuse" and not report.dry_run:
        raise EmailConflicts(sorted(conflicts))

    new_users: list[tuple[str, User]] = []
    for row, email in plan:
        old_id = str(row["id"])
        profile = profiles.get(old_id, {})
        if email in existing:
            if ctx.on_conflict == "merge":
                ctx.members[old_id] = existing[email]
                ctx.remember(Kind.USER, old_id, existing[email], user_id=existing[email], first_sign_in_at=ctx.now)
                report.skipped("users", MERGED)
            else:
                report.skipped("users", SKIP_CONFLICT if ctx.on_conflict == "skip" else SKIP_CONFLICT_DRY)
            continue
        meta = _meta(row)
        password = _password(row, providers.get(old_id, set()))
        if password is None:
            report.anomaly("no_password", old_id, member=old_id)
        banned = row.get("banned_until")
        if banned and banned > ctx.now:
            report.anomaly("banned", old_id, f"tot {banned:%d-%m-%Y}", member=old_id)
        full_name = _full_name(row, profile)
        if len(full_name) > NAME_MAX_LENGTH:
            report.anomaly("name_cut", old_id, f"nu: {full_name[:NAME_MAX_LENGTH][:40]}…", member=old_id)
        new_users.append(
            (
                old_id,
                User(
                    email=email,
                    full_name=full_name[:NAME_MAX_LENGTH],
                    newsletter_consent=bool(
                        profile["newsletter_consent"]
                        if profile.get("newsletter_consent") is not None
                        else meta.get("newsletter_consent")
                    ),
                    created_at=profile.get("created_at") or row.get("created_at") or ctx.now,
                    password=password or make_password(None),
                    is_active=not (banned and banned > ctx.now),
                ),
            )
        )
    User.objects.bulk_create([user for _, user in new_users], batch_size=500)
    for old_id, user in new_users:
        ctx.members[old_id] = user.pk
        ctx.remember(Kind.USER, old_id, user.pk, user_id=user.pk)
    report.imported("users", len(new_users))
    _merge_duplicates(ctx, duplicates)
    _import_roles(ctx, data)


def _merge_duplicates(ctx: ImportContext, duplicates: dict[str, str]) -> None:
    """--merge-duplicates: a second account with the oldest one's address brings its history into that account."""
    for old_id, oldest in duplicates.items():
        new_id = ctx.members.get(oldest)
        if new_id is None:  # the oldest account did not come in: neither does this one
            ctx.report.skipped("users", SKIP_DUPLICATE)
            ctx.report.anomaly("email_duplicate", old_id, member=old_id)
            continue
        ctx.members[old_id] = new_id
        ctx.remember(Kind.USER, old_id, new_id, user_id=new_id)
        ctx.report.skipped("users", MERGED_DUPLICATE)
        ctx.report.anomaly("email_duplicate_merged", old_id, f"in {ctx.report.people[oldest]}", member=old_id)


def _full_name(row: dict, profile: dict) -> str:
    return (profile.get("full_name") or _meta(row).get("full_name") or "").strip()


def _joined(row: dict, profile: dict, ctx: ImportContext):
    return profile.get("created_at") or row.get("created_at") or ctx.now


def _import_roles(ctx: ImportContext, data: SourceData) -> None:
    report = ctx.report
    admins = {str(r["user_id"]) for r in data.rows("user_roles") if r.get("role") == UserRole.Role.ADMIN}
    report.found("roles", len(admins))
    wanted = {ctx.members[old_id] for old_id in admins if old_id in ctx.members}
    if len(admins) > len(wanted):
        report.skipped("roles", SKIP_ROLE_MEMBER, len(admins) - len(wanted))
    having = set(
        UserRole.objects.filter(user_id__in=wanted, role=UserRole.Role.ADMIN).values_list("user_id", flat=True)
    )
    UserRole.objects.bulk_create([UserRole(user_id=pk, role=UserRole.Role.ADMIN) for pk in wanted - having])
    report.imported("roles", len(wanted - having))
    report.already("roles", len(wanted & having))
