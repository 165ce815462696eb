"""Invitations (unused, unexpired codes keep working, whatever their shape) and events with their participants."""

import datetime
import re

from apps.events.models import LOCATION_MAX_LENGTH, TITLE_MAX_LENGTH, Event, EventParticipant
from apps.invitations.models import STORED_CODE_PATTERN, VALID_DAYS, Invitation
from apps.invitations.services import invitation_code_normalize

from .context import ImportContext, Kind
from .source import SourceData

SKIP_CODE = "ongeldige code"
SKIP_MEMBER = "lid niet geïmporteerd"
SKIP_EVENT = "event niet geïmporteerd"
SKIP_NO_DATE = "geen datum"
_STORED_SHAPE = re.compile(STORED_CODE_PATTERN)


def import_invitations(ctx: ImportContext, data: SourceData) -> None:
    report = ctx.report
    taken = set(Invitation.objects.values_list("code", flat=True))
    made: list[tuple[str, Invitation]] = []
    for row in data.rows("invitations"):
        report.found("invitations")
        old_id = str(row["id"])
        if ctx.seen(Kind.INVITATION, old_id) is not None:
            report.already("invitations")
            continue
        code = invitation_code_normalize(row.get("code"))
        if not _STORED_SHAPE.fullmatch(code) or code in taken:
            report.skipped("invitations", SKIP_CODE)
            reason = "bestaat hier al" if code in taken else "geen geldige vorm"
            report.anomaly("invitation_invalid", old_id, reason, who=f"code {row.get('code') or '(leeg)'}")
            continue
        taken.add(code)
        created = row.get("created_at") or ctx.now
        expires = row.get("expires_at") or created + datetime.timedelta(days=VALID_DAYS)
        used_at = row.get("used_at")
        made.append(
            (
                old_id,
                Invitation(
                    code=code,
                    email=(row.get("email") or "").strip().lower() or None,
                    invited_by_id=ctx.members.get(str(row.get("invited_by"))),
                    created_at=created,
                    # The database wants the expiry after the creation; a code without one gets the usual term.
                    expires_at=max(expires, created + datetime.timedelta(seconds=1)),
                    used_at=used_at,
                    used_by_id=ctx.members.get(str(row.get("used_by"))) if used_at else None,
                ),
            )
        )
    Invitation.objects.bulk_create([invitation for _, invitation in made])
    for old_id, invitation in made:
        ctx.remember(Kind.INVITATION, old_id, invitation.pk)
    report.imported("invitations", len(made))


def import_events(ctx: ImportContext, data: SourceData) -> None:
    report = ctx.report
    made: list[tuple[str, Event]] = []
    for row in data.rows("events"):
        report.found("events")
        old_id = str(row["id"])
        if ctx.seen(Kind.EVENT, old_id) is not None:
            report.already("events")
            continue
        if row.get("event_date") is None:
            report.skipped("events", SKIP_NO_DATE)
            continue
        maximum = row.get("max_participants")
        made.append(
            (
                old_id,
                Event(
                    title=(row.get("title") or "").strip()[:TITLE_MAX_LENGTH] or "Event",
                    event_date=row["event_date"],
                    location=(row.get("location") or "")[:LOCATION_MAX_LENGTH],
                    description=row.get("description") or "",
                    max_participants=maximum if isinstance(maximum, int) and maximum >= 1 else None,
                    is_active=bool(row.get("is_active")),
                    created_at=row.get("created_at") or ctx.now,
                ),
            )
        )
    Event.objects.bulk_create([event for _, event in made])
    for old_id, event in made:
        ctx.remember(Kind.EVENT, old_id, event.pk)
    report.imported("events", len(made))
    _import_participants(ctx, data, {event.pk: (old_id, event) for old_id, event in made})


def _import_participants(ctx: ImportContext, data: SourceData, new_events: dict[int, tuple[str, Event]]) -> None:
    report = ctx.report
    made: list[tuple[str, EventParticipant]] = []
    pairs: set[tuple[int, int]] = set()
    for row in data.rows("event_participants"):
        report.found("participants")
        old_id = str(row.get("id") or f"{row['event_id']}:{row['user_id']}")
        if ctx.seen(Kind.PARTICIPANT, old_id) is not None:
            report.already("participants")
            continue
        event_id = ctx.seen(Kind.EVENT, row.get("event_id"))
        user_id = ctx.members.get(str(row.get("user_id")))
        if event_id is None or user_id is None:
            report.skipped("participants", SKIP_EVENT if event_id is None else SKIP_MEMBER)
            continue
        if (event_id, user_id) in pairs:
            report.skipped("participants", "dubbel")
            continue
        pairs.add((event_id, user_id))
        signed_up = row.get("created_at") or ctx.now
        made.append((old_id, EventParticipant(event_id=event_id, user_id=user_id, created_at=signed_up)))
    EventParticipant.objects.bulk_create([participant for _, participant in made])
    for old_id, participant in made:
        ctx.remember(Kind.PARTICIPANT, old_id, participant.pk, user_id=participant.user_id)
    report.imported("participants", len(made))
    counts: dict[int, int] = {}
    for event_id, _ in pairs:
        counts[event_id] = counts.get(event_id, 0) + 1
    for event_id, count in counts.items():
        old_id, event = new_events.get(event_id, ("", None))
        if event is not None and event.max_participants and count > event.max_participants:
            detail = f"{count} aanmeldingen, maximum {event.max_participants}"
            report.anomaly("event_overfull", old_id, detail, who=f"{event.title} ({event.event_date:%d-%m-%Y})")
