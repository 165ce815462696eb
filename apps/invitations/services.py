"""Invitation rules: codes, creation, validation, consumption at sign-up, bulk creation, clean-up.

Every function is keyword-only and owns its transaction. `invitation_consume` is meant to run
inside the sign-up transaction of `apps.accounts.services.account_register`: its own atomic block
then becomes a savepoint, and the row lock it takes is held until the sign-up commits.
"""

import datetime
import re
import secrets
import string
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.audit.actions import AuditAction
from apps.audit.services import AuditMeta, audit_record

from .models import CODE_LENGTH, STORED_CODE_PATTERN, VALID_DAYS, Invitation
from .parsing import MAX_EMAIL_LENGTH, UNREADABLE_SHOWN, extract_emails, unreadable_addresses
from .selectors import CHUNK, emails_with_account, emails_with_open_invitation
from .signals import invitations_created

# Still 8 uppercase letters and digits (the spec), but never one that reads as another: no O/0 and no I/1, so a
# code read aloud or typed over from a screen is the code. Codes drawn before keep working (the check and the
# column's constraint take every letter and digit, and the other shapes of codes moved in from the original app).
LOOK_ALIKES = frozenset("O0I1")
CODE_ALPHABET = "".join(sorted(set(string.ascii_uppercase + string.digits) - LOOK_ALIKES))
_CODE_SHAPE = re.compile(STORED_CODE_PATTERN)

# The Dutch texts members and admins see (spec section 8, issue 3).
MESSAGE_CODE_REQUIRED = "Een uitnodigingscode is verplicht om te registreren"
MESSAGE_CODE_INVALID = "Ongeldige uitnodigingscode"
MESSAGE_CODE_USED = "Deze uitnodigingscode is al gebruikt"
MESSAGE_CODE_EXPIRED = "Deze uitnodigingscode is verlopen"
MESSAGE_CODE_OTHER_EMAIL = "Deze uitnodigingscode is bedoeld voor een ander e-mailadres"
MESSAGE_CODE_VALID = "Geldige uitnodigingscode"
MESSAGE_EMAIL_INVALID = "Vul een geldig e-mailadres in"
MESSAGE_EMAIL_HAS_ACCOUNT = "Dit e-mailadres heeft al een account"
MESSAGE_EMAIL_HAS_OPEN_INVITATION = "Dit e-mailadres heeft al een openstaande uitnodiging"
MESSAGE_BULK_NONE_VALID = "Geen geldige email adressen gevonden"
MESSAGE_BULK_ALL_REGISTERED = "Alle email adressen zijn al geregistreerd"
MESSAGE_BULK_ALL_SKIPPED = "Alle email adressen zijn al geregistreerd of hebben al een openstaande uitnodiging"
# The addresses of a paste that could not be read, named (parsing.unreadable_addresses), never dropped silently.
MESSAGE_BULK_UNREADABLE = "Niet te lezen, dus niet uitgenodigd: {addresses}."
MESSAGE_BULK_UNREADABLE_MORE = "{shown} en nog {more} andere"
MESSAGE_BULK_TOO_MANY = "Te veel email adressen in één keer: maximaal {max}. Verdeel de lijst en probeer het opnieuw."

# Addresses per bulk request: a whole club at once, but not a mailing list. It keeps the request (codes,
# inserts and the rows it answers with) well under two seconds, whatever an admin pastes.
MAX_BULK_EMAILS = 2_000


def invitation_code_generate() -> str:
    """8 uppercase letters and digits from a cryptographic random source."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def invitation_code_normalize(code: str | None) -> str:
    """Members type or paste codes: surrounding spaces and lower case do not matter."""
    return (code or "").strip().upper()


def _email_normalize(email: str | None) -> str | None:
    email = (email or "").strip().lower()
    if not email:
        return None
    if len(email) > MAX_EMAIL_LENGTH:  # the column's size; Django's validator allows up to 320
        raise ValidationError(MESSAGE_EMAIL_INVALID, code="email_invalid")
    try:
        validate_email(email)
    except ValidationError as exc:
        raise ValidationError(MESSAGE_EMAIL_INVALID, code="email_invalid") from exc
    return email


def _emails_not_to_invite(emails: list[str], *, now: datetime.datetime) -> tuple[set[str], set[str]]:
    """The one rule of the single and the bulk invitation: no new invitation for an address that has an
    account, nor for one (of the rest) that has an open (unused, unexpired) invitation. Returns both sets."""
    registered = emails_with_account(emails)
    invited = emails_with_open_invitation([email for email in emails if email not in registered], now=now)
    return registered, invited


def invitation_create(*, invited_by=None, email: str | None = None, now: datetime.datetime | None = None) -> Invitation:
    """One invitation; without an e-mail address it is a generic code anyone may use once, with one it is mailed.
    An address that has an account or an open invitation is refused (ValidationError), as the bulk path skips it."""
    now = now or timezone.now()
    email = _email_normalize(email)
    if email:
        registered, invited = _emails_not_to_invite([email], now=now)
        if registered:
            raise ValidationError(MESSAGE_EMAIL_HAS_ACCOUNT, code="email_has_account")
        if invited:
            raise ValidationError(MESSAGE_EMAIL_HAS_OPEN_INVITATION, code="email_has_open_invitation")
    for _ in range(10):
        try:
            with transaction.atomic():
                invitation = Invitation.objects.create(
                    code=invitation_code_generate(),
                    email=email,
                    invited_by=invited_by,
                    created_at=now,
                    expires_at=now + datetime.timedelta(days=VALID_DAYS),
                )
                # With an address, the invitation goes out by mail (the mail app queues it in this commit).
                invitations_created.send(sender=Invitation, invitations=[invitation])
                return invitation
        except IntegrityError:
            # 36^8 codes make a clash rare; a clash simply draws again.
            continue
    raise RuntimeError("Could not draw a unique invitation code")


@dataclass(frozen=True)
class InvitationCheck:
    """The spec's validate_invitation_code result: is_valid plus a Dutch message."""

    is_valid: bool
    message: str
    code: str = ""  # a machine-readable reason: ok, required, invalid, used, expired, other_email
    invitation: Invitation | None = None


def _check(invitation: Invitation | None, *, email: str | None, now: datetime.datetime) -> InvitationCheck:
    if invitation is None:
        return InvitationCheck(False, MESSAGE_CODE_INVALID, "invalid")
    if invitation.used_at is not None:
        return InvitationCheck(False, MESSAGE_CODE_USED, "used", invitation)
    if invitation.expires_at <= now:
        return InvitationCheck(False, MESSAGE_CODE_EXPIRED, "expired", invitation)
    if invitation.email and invitation.email.strip().lower() != (email or "").strip().lower():
        return InvitationCheck(False, MESSAGE_CODE_OTHER_EMAIL, "other_email", invitation)
    return InvitationCheck(True, MESSAGE_CODE_VALID, "ok", invitation)


def _lookup(code: str, *, lock: bool) -> Invitation | None:
    # A code of the wrong shape cannot exist (a check constraint guarantees it): no query needed.
    if not _CODE_SHAPE.fullmatch(code):
        return None
    queryset = Invitation.objects.select_for_update() if lock else Invitation.objects.all()
    return queryset.filter(code=code).first()


def invitation_validate(
    *, code: str | None, email: str | None, now: datetime.datetime | None = None
) -> InvitationCheck:
    """Check a code against an e-mail address without changing anything (the spec's validate_invitation_code)."""
    now = now or timezone.now()
    code = invitation_code_normalize(code)
    if not code:
        return InvitationCheck(False, MESSAGE_CODE_REQUIRED, "required")
    return _check(_lookup(code, lock=False), email=email, now=now)


def invitation_consume(
    *, code: str | None, email: str | None, user, now: datetime.datetime | None = None
) -> Invitation:
    """Mark the invitation used by `user` (the spec's mark_invitation_used), checking it again under a row lock.

    Call it inside the transaction that creates `user`: the lock makes simultaneous sign-ups with
    one code wait for each other, and the ones that come second see `used_at` set and fail, which
    rolls back their user as well. Raises ValidationError with the Dutch message.
    """
    now = now or timezone.now()
    code = invitation_code_normalize(code)
    if not code:
        raise ValidationError(MESSAGE_CODE_REQUIRED, code="required")
    with transaction.atomic():
        check = _check(_lookup(code, lock=True), email=email, now=now)
        if not check.is_valid:
            raise ValidationError(check.message, code=check.code)
        invitation = check.invitation
        assert invitation is not None  # a valid check carries its invitation
        invitation.used_at = now
        invitation.used_by = user
        invitation.save(update_fields=["used_at", "used_by"])
    return invitation


@dataclass
class BulkInvitationResult:
    created: list[Invitation] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # addresses that already have an account
    skipped_open: list[str] = field(default_factory=list)  # addresses with an unused, unexpired invitation
    unreadable: list[str] = field(default_factory=list)  # what looked like an address but is none, as pasted


def unreadable_message(unreadable: list[str]) -> str:
    """ "Niet te lezen, dus niet uitgenodigd: fleur @ example.nl, hanna@example..nl." ("" for none)."""
    if not unreadable:
        return ""
    shown = ", ".join(unreadable[:UNREADABLE_SHOWN])
    if len(unreadable) > UNREADABLE_SHOWN:
        shown = MESSAGE_BULK_UNREADABLE_MORE.format(shown=shown, more=len(unreadable) - UNREADABLE_SHOWN)
    return MESSAGE_BULK_UNREADABLE.format(addresses=shown)


def _unique_codes(count: int) -> list[str]:
    """`count` fresh codes, different from each other and from every stored code."""
    codes: set[str] = set()
    while len(codes) < count:
        wanted = {invitation_code_generate() for _ in range(count - len(codes))} - codes
        batch = list(wanted)
        for start in range(0, len(batch), CHUNK):
            taken = set(Invitation.objects.filter(code__in=batch[start : start + CHUNK]).values_list("code", flat=True))
            wanted -= taken
        codes |= wanted
    return list(codes)


def invitation_bulk_create(
    *, invited_by, text: str, now: datetime.datetime | None = None, meta: AuditMeta | None = None
) -> BulkInvitationResult:
    """One invitation per address found in pasted free text; addresses with an account or an open
    (unused, unexpired) invitation are skipped.

    Raises ValidationError 'Geen geldige email adressen gevonden' when the text holds no valid
    address, 'Alle email adressen zijn al geregistreerd' when every address has an account, and a
    'Te veel…' message beyond MAX_BULK_EMAILS addresses (then nothing is created).
    """
    now = now or timezone.now()
    emails = extract_emails(text)
    unreadable = unreadable_addresses(text)
    if not emails:
        said = f"{MESSAGE_BULK_NONE_VALID}. {unreadable_message(unreadable)}" if unreadable else MESSAGE_BULK_NONE_VALID
        raise ValidationError(said, code="no_valid_emails")
    if len(emails) > MAX_BULK_EMAILS:
        raise ValidationError(MESSAGE_BULK_TOO_MANY.format(max=MAX_BULK_EMAILS), code="too_many_emails")
    # Pasting the same list twice must not give anyone a second open code.
    registered, invited = _emails_not_to_invite(emails, now=now)
    new = [email for email in emails if email not in registered and email not in invited]
    if not new:
        if invited:
            raise ValidationError(MESSAGE_BULK_ALL_SKIPPED, code="all_skipped")
        raise ValidationError(MESSAGE_BULK_ALL_REGISTERED, code="all_registered")
    expires_at = now + datetime.timedelta(days=VALID_DAYS)
    for _ in range(5):
        try:
            with transaction.atomic():
                created = Invitation.objects.bulk_create(
                    [
                        Invitation(code=code, email=email, invited_by=invited_by, created_at=now, expires_at=expires_at)
                        for code, email in zip(_unique_codes(len(new)), new, strict=True)
                    ],
                    batch_size=CHUNK,
                )
                invitations_created.send(sender=Invitation, invitations=created)
                if meta is not None:  # the audit log, in this transaction: how many, not the addresses
                    audit_record(meta=meta, action=AuditAction.INVITATIONS_BULK, detail=f"{len(created)} uitnodigingen")
            return BulkInvitationResult(
                created=created,
                skipped=[email for email in emails if email in registered],
                skipped_open=[email for email in emails if email in invited],
                unreadable=unreadable,
            )
        except IntegrityError:
            # Another admin drew one of the same codes in between: draw the whole batch again.
            continue
    raise RuntimeError("Could not draw unique invitation codes")


def invitation_delete(*, invitation: Invitation) -> None:
    with transaction.atomic():
        Invitation.objects.filter(pk=invitation.pk).delete()


def invitations_cleanup_expired(*, now: datetime.datetime | None = None) -> int:
    """Delete expired invitations that were never used; used ones stay as the record of who invited whom."""
    now = now or timezone.now()
    with transaction.atomic():
        _total, per_model = Invitation.objects.filter(used_at__isnull=True, expires_at__lte=now).delete()
    return per_model.get(Invitation._meta.label, 0)
