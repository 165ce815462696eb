"""Stamp cards with their dips and earned badges, by this app's card rules (not the old app's):

- the dips are numbered 1..n on their card in the order of their date and moment;
- a card holds at most its target: dips beyond it are kept as dips without a card (they still count for the
  member's history and club challenges) and reported;
- a card that reaches its target is completed (on the old completion date, else at the target's dip); a card
  the old app completed stays completed, also when it holds fewer dips (reported);
- a badge is earned for every milestone the card's dips reach, on the old date when there was one (the
  newest of duplicates), else at the milestone's dip; an old badge the dips do not reach is left out;
- one active card per member: of several, the unfinished one with the most dips.
"""

import datetime
from collections import defaultdict
from urllib.parse import unquote

from django.db.models import Max
from django.utils import timezone

from apps.challenges.models import Challenge, Dip, UserBadge, UserChallenge

from .context import ImportContext, Kind
from .models import ImportedObject
from .source import SourceData

SKIP_MEMBER = "lid niet geïmporteerd"
SKIP_CHALLENGE = "challenge niet geïmporteerd"
SKIP_NO_CARD = "zonder (bekende) kaart"
SKIP_NOT_REACHED = "de plonsen halen de mijlpaal niet"
SKIP_DUPLICATE = "dubbel (de nieuwste telt)"
SKIP_CARD_DONE = "kaart al eerder geïmporteerd"
SKIP_OTHER_BADGE = "hoort niet bij de challenge van de kaart"
PHOTO_MARKER = "/object/public/dip_photos/"
BATCH = 2000


def photo_key(url: str | None) -> str:
    """The object's key in the bucket from the public URL supabase-js built (or a bare key)."""
    url = (url or "").strip()
    if PHOTO_MARKER in url:
        return unquote(url.split(PHOTO_MARKER, 1)[1].split("?", 1)[0])
    if url and "://" not in url:
        return unquote(url.lstrip("/")).removeprefix("dip_photos/")
    return ""


def import_cards(ctx: ImportContext, data: SourceData) -> None:
    report = ctx.report
    challenges = {c.pk: c for c in Challenge.objects.prefetch_related("badges")}
    dips_by_card: dict[str, list[dict]] = defaultdict(list)
    card_ids = {str(row["id"]) for row in data.rows("user_challenges")}
    for dip in data.rows("dips"):
        report.found("dips")
        if str(dip.get("user_challenge_id")) in card_ids:
            dips_by_card[str(dip["user_challenge_id"])].append(dip)
        elif ctx.seen(Kind.DIP, dip["id"]) is not None:
            report.already("dips")
        else:
            report.skipped("dips", SKIP_NO_CARD)
            report.anomaly("dip_without_card", dip["id"], _day(dip), member=dip.get("user_id"))
    awards_by_card: dict[str, list[dict]] = defaultdict(list)
    for award in data.rows("user_badges"):
        report.found("awards")
        awards_by_card[str(award.get("user_challenge_id"))].append(award)
    for old_card_id in set(awards_by_card) - card_ids:
        report.skipped("awards", SKIP_NO_CARD, len(awards_by_card[old_card_id]))

    cards_by_member: dict[int | str, list[dict]] = defaultdict(list)
    for row in data.rows("user_challenges"):
        report.found("cards")
        old_member = str(row["user_id"])
        # Duplicates merged into one account (--merge-duplicates) are one member here: their cards planned together.
        cards_by_member[ctx.members.get(old_member, old_member)].append(row)
    members = set(ctx.members.values())
    active_members = set(
        UserChallenge.objects.filter(user_id__in=members, is_active=True).values_list("user_id", flat=True)
    )
    cardless = dict(
        Dip.objects.filter(user_id__in=members, user_challenge__isnull=True)
        .values("user_id")
        .annotate(top=Max("number"))
        .values_list("user_id", "top")
    )
    planned: list[tuple[dict, UserChallenge, list[Dip], list[Dip], list[UserBadge], list[dict]]] = []
    for rows in cards_by_member.values():
        old_member = str(rows[0]["user_id"])
        user_id = ctx.members.get(old_member)
        if sum(1 for row in rows if row.get("is_active")) > 1:
            actives = sum(1 for r in rows if r.get("is_active"))
            report.anomaly("two_active_cards", old_member, f"{actives} kaarten", member=old_member)
        fresh = []
        for row in rows:
            old_id = str(row["id"])
            dips, awards = dips_by_card.pop(old_id, []), awards_by_card.pop(old_id, [])
            challenge = challenges.get(ctx.seen(Kind.CHALLENGE, row.get("challenge_id")) or 0)
            if ctx.seen(Kind.CARD, old_id) is not None:
                report.already("cards")
                for dip in dips:
                    if ctx.seen(Kind.DIP, dip["id"]) is not None:
                        report.already("dips")
                    else:  # added to the old card after it was imported: the card's rules were applied then
                        report.skipped("dips", SKIP_CARD_DONE)
                report.already("awards", len(awards))
            elif user_id is None or challenge is None:
                reason = SKIP_MEMBER if user_id is None else SKIP_CHALLENGE
                report.skipped("cards", reason)
                report.skipped("dips", reason, len(dips)) if dips else None
                report.skipped("awards", reason, len(awards)) if awards else None
            else:
                fresh.append((row, challenge, dips, awards))
        if not fresh or user_id is None:
            continue
        active_row = None if user_id in active_members else _active_choice(fresh)
        next_cardless = cardless.get(user_id) or 0
        for row, challenge, dips, awards in fresh:
            card, on_card, over, card_awards, kept_awards = _card_plan(
                ctx, row, challenge, dips, awards, user_id=user_id, active=row is active_row, first=next_cardless
            )
            next_cardless += len(over)
            planned.append((row, card, on_card, over, card_awards, kept_awards))
            ctx.touched_members.add(user_id)
    _write(ctx, planned)


def _active_choice(fresh: list[tuple]) -> dict | None:
    """The card that stays active: the unfinished one with the most dips, else the newest finished active one."""
    active = [(row, challenge, dips) for row, challenge, dips, _ in fresh if row.get("is_active")]
    open_cards = [t for t in active if len(t[2]) < t[1].target_dips and not t[0].get("completed_at")]
    pool = open_cards or active
    if not pool:
        return None
    return max(pool, key=lambda t: (len(t[2]), _moment(t[0].get("created_at"))))[0]


def _day(dip: dict) -> str:
    day = dip.get("dip_date")
    return f"plons van {day:%d-%m-%Y}" if isinstance(day, datetime.date) else ""


def _moment(value) -> datetime.datetime:
    return value or datetime.datetime.min.replace(tzinfo=datetime.UTC)


def _card_plan(ctx, row, challenge, dips, awards, *, user_id, active, first):
    report = ctx.report
    old_card = str(row["id"])
    target = challenge.target_dips
    on_card_rows, over_rows = dips[:target], dips[target:]
    member = row.get("user_id")
    if over_rows:
        detail = f"{challenge.name}: {len(dips)} plonsen, doel {target}"
        report.anomaly("dips_over_target", old_card, detail, member=member)
    started_at = row.get("created_at") or (dips[0]["created_at"] if dips else None) or ctx.now
    completed_at = None
    if len(dips) >= target:
        completed_at = row.get("completed_at") or on_card_rows[-1].get("created_at") or ctx.now
    elif row.get("completed_at"):
        completed_at = row["completed_at"]
        report.anomaly(
            "completed_short", old_card, f"{challenge.name}: {len(dips)} van {target} plonsen", member=member
        )
    card = UserChallenge(
        user_id=user_id,
        challenge=challenge,
        challenge_type=challenge.category,
        is_active=active,
        started_at=min(started_at, dips[0]["created_at"]) if dips and dips[0].get("created_at") else started_at,
        completed_at=completed_at,
    )
    on_card = [_dip(ctx, d, user_id=user_id, number=n) for n, d in enumerate(on_card_rows, start=1)]
    over = [_dip(ctx, d, user_id=user_id, number=first + n) for n, d in enumerate(over_rows, start=1)]
    card_awards, kept = _awards(ctx, challenge, on_card_rows, awards, user_id=user_id, old_card=old_card, member=member)
    return card, on_card, over, card_awards, kept


def _dip(ctx, row: dict, *, user_id: int, number: int) -> Dip:
    created = row.get("created_at")
    day = row.get("dip_date") or timezone.localdate(created or ctx.now)
    if created and timezone.localdate(created) != day:
        tapped = timezone.localtime(created)
        detail = f"datum {day:%d-%m-%Y}, getikt {tapped:%d-%m-%Y %H:%M}"
        ctx.report.anomaly("dip_date_midnight", row["id"], detail, member=row.get("user_id"))
    dip = Dip(user_id=user_id, number=number, dip_date=day, created_at=created or ctx.now, share_photo=False)
    dip._old = row  # type: ignore[attr-defined]
    return dip


def _awards(ctx, challenge, on_card_rows, awards, *, user_id, old_card, member):
    """The card's badges by the app's rule, dated from the old awards where there are any."""
    report = ctx.report
    newest: dict[int, dict] = {}
    names = {badge.pk: badge.name for badge in challenge.badges.all()}
    badge_name = names.get
    for award in awards:
        badge_id = ctx.seen(Kind.BADGE, award.get("badge_id"))
        if badge_id is None or badge_id not in {b.pk for b in challenge.badges.all()}:
            report.skipped("awards", SKIP_OTHER_BADGE)
            continue
        if badge_id in newest:
            report.anomaly("badge_duplicate", award["id"], f"{challenge.name}: {badge_name(badge_id)}", member=member)
            report.skipped("awards", SKIP_DUPLICATE)
            if _moment(award.get("earned_at")) <= _moment(newest[badge_id].get("earned_at")):
                continue
        newest[badge_id] = award
    made, kept = [], []
    for badge in challenge.badges.all():
        award = newest.pop(badge.pk, None)
        if badge.milestone_dips > len(on_card_rows):
            if award is not None:
                detail = f"{badge.name}: {len(on_card_rows)} plonsen"
                report.anomaly("badge_unearned", award["id"], detail, member=member)
                report.skipped("awards", SKIP_NOT_REACHED)
            continue
        reached_at = on_card_rows[badge.milestone_dips - 1].get("created_at") or ctx.now
        if award is None:
            report.anomaly("badge_missing", old_card, f"{challenge.name}: {badge.name}", member=member)
        made.append(UserBadge(user_id=user_id, badge=badge, earned_at=(award or {}).get("earned_at") or reached_at))
        kept.append(award)
    return made, kept


def _write(ctx: ImportContext, planned) -> None:
    report = ctx.report
    UserChallenge.objects.bulk_create([card for _, card, *_ in planned], batch_size=BATCH)
    dips: list[Dip] = []
    awards: list[UserBadge] = []
    for row, card, on_card, over, card_awards, _ in planned:
        ctx.remember(Kind.CARD, row["id"], card.pk, user_id=card.user_id)
        for dip in on_card:
            dip.user_challenge = card
        for award in card_awards:
            award.user_challenge = card
        dips += on_card + over
        awards += card_awards
    Dip.objects.bulk_create(dips, batch_size=BATCH)
    UserBadge.objects.bulk_create(awards, batch_size=BATCH)
    for dip in dips:
        old = dip._old  # type: ignore[attr-defined]
        key = photo_key(old.get("photo_url"))
        status = ImportedObject.PhotoStatus.WAITING if key else ""
        ctx.remember(Kind.DIP, old["id"], dip.pk, user_id=dip.user_id, photo_key=key, photo_status=status)
        if key:
            report.found("photos")
            report.photo_keys.append(key)
    for _, _, _, _, card_awards, kept in planned:
        for award, old in zip(card_awards, kept, strict=True):
            # A badge the old app never gave (the dips reach it) has no old id: named after its card.
            old_id = old["id"] if old else f"card:{award.user_challenge_id}:{award.badge_id}"
            ctx.remember(Kind.AWARD, old_id, award.pk, user_id=award.user_id)
    report.imported("cards", len(planned))
    report.imported("dips", len(dips))
    report.imported("awards", len(awards))
