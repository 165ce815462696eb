"""Challenges and badges, matched to this app's catalogue; the club's own (special) challenges are created."""

from apps.challenges.catalogue import CHALLENGES
from apps.challenges.models import Badge, Challenge

from .context import ImportContext, Kind
from .source import SourceData

SKIP_CHALLENGE_UNUSABLE = "geen geldig doel (1 tot 1000 plonsen)"
SKIP_BADGE_UNKNOWN_CHALLENGE = "hoort bij een onbekende challenge"
SKIP_BADGE_UNUSABLE = "geen geldige mijlpaal"


def _category(value) -> str:
    return value if value in Challenge.Category.values else Challenge.Category.SPECIAL


def _match(row: dict, by_name: dict[str, Challenge], waterdieren: Challenge | None) -> Challenge | None:
    """The catalogue challenge this old one is: the stamp card by its category, the others by name."""
    if _category(row.get("category")) == Challenge.Category.WATERDIEREN and waterdieren is not None:
        return waterdieren
    return by_name.get((row.get("name") or "").strip().lower())


def import_catalogue(ctx: ImportContext, data: SourceData) -> None:
    """Fill ctx.known[CHALLENGE] and ctx.known[BADGE] for every old challenge and badge."""
    report = ctx.report
    challenges: list[Challenge] = list(Challenge.objects.all())
    by_name = {c.name.strip().lower(): c for c in challenges}
    for entry in CHALLENGES:  # the original app's names of the catalogue's challenges
        if (own := by_name.get(entry["name"].lower())) is not None:
            by_name |= {former.lower(): own for former in entry["former_names"]}
    waterdieren = next((c for c in challenges if c.is_waterdieren), None)
    for row in data.rows("challenges"):
        report.found("challenges")
        old_id = str(row["id"])
        if ctx.seen(Kind.CHALLENGE, old_id) is not None:
            report.already("challenges")
            continue
        challenge = _match(row, by_name, waterdieren)
        if challenge is None:
            target = row.get("target_dips")
            if not isinstance(target, int) or not 1 <= target <= 1000:
                report.skipped("challenges", SKIP_CHALLENGE_UNUSABLE)
                continue
            challenge = Challenge.objects.create(
                name=(row.get("name") or "").strip()[:120] or f"Challenge {old_id[:8]}",
                description=row.get("description") or "",
                category=_category(row.get("category")),
                target_dips=target,
                badge_image_url=(row.get("badge_image_url") or "")[:300],
                is_active=bool(row.get("is_active")),
            )
            by_name[challenge.name.lower()] = challenge
            report.imported("challenges")
        else:
            report.skipped("challenges", f"gekoppeld aan '{challenge.name}' uit de catalogus")
        ctx.remember(Kind.CHALLENGE, old_id, challenge.pk)
    _import_badges(ctx, data)


def _import_badges(ctx: ImportContext, data: SourceData) -> None:
    report = ctx.report
    known = {(b.challenge_id, b.milestone_dips): b.pk for b in Badge.objects.all()}
    for row in data.rows("badges"):
        report.found("badges")
        old_id = str(row["id"])
        if ctx.seen(Kind.BADGE, old_id) is not None:
            report.already("badges")
            continue
        challenge_id = ctx.seen(Kind.CHALLENGE, row.get("challenge_id"))
        milestone = row.get("milestone_dips")
        if challenge_id is None:
            report.skipped("badges", SKIP_BADGE_UNKNOWN_CHALLENGE)
            continue
        if not isinstance(milestone, int) or milestone < 1:
            report.skipped("badges", SKIP_BADGE_UNUSABLE)
            continue
        badge_id = known.get((challenge_id, milestone))
        if badge_id is None:
            badge = Badge.objects.create(
                challenge_id=challenge_id,
                name=(row.get("name") or "").strip()[:80] or f"{milestone} plonsen",
                description=(row.get("description") or "")[:300],
                image_url=(row.get("image_url") or "")[:300],
                milestone_dips=milestone,
            )
            badge_id = known[(challenge_id, milestone)] = badge.pk
            report.imported("badges")
        else:
            report.skipped("badges", "gekoppeld aan de badge uit de catalogus")
        ctx.remember(Kind.BADGE, old_id, badge_id)
