"""The plan of the club before anything is written: each member's dips, cards and moments."""

import datetime
import random
from typing import TYPE_CHECKING

from django.utils import timezone

from apps.challenges.models import Challenge

from .common import DIP_GAPS_DAYS

if TYPE_CHECKING:
    from .seeder import LoadSeeder


def dip_budgets(seeder: "LoadSeeder", rng: random.Random) -> tuple[list[int], bool]:
    """Dips per member: a long tail (most swim a little, some a lot), exactly members × average in all.
    The first member is the bench member (a heavy history) when the total leaves room for one."""
    total = seeder.members * seeder.dips_per_member
    heavy = seeder.starter.target_dips + 2 * seeder.waterdieren.target_dips - 1
    budgets = [0] * seeder.members
    first = 0
    if total >= heavy and seeder.dips_per_member > 0:
        budgets[0] = heavy
        first = 1
    others = range(first, seeder.members)
    mean = seeder.dips_per_member
    for index in others:
        budgets[index] = min(int(rng.expovariate(1 / mean)) if mean else 0, 6 * mean)
    missing = total - sum(budgets)
    candidates = list(others)
    while missing and candidates:
        index = rng.choice(candidates)
        if missing > 0:
            budgets[index] += 1
            missing -= 1
        elif budgets[index] > 0:
            budgets[index] -= 1
            missing += 1
        else:
            candidates.remove(index)
    return budgets, first == 1


def cards_for(
    seeder: "LoadSeeder", budget: int, rng: random.Random, *, bench_member: bool
) -> list[tuple[Challenge, int]]:
    """Chronological cards: (challenge, dips). The last card is the active one; the others are archived
    and therefore completed (challenge_start archives only completed cards)."""
    starter, water = seeder.starter, seeder.waterdieren
    if bench_member:
        return [(starter, starter.target_dips), (water, water.target_dips), (water, water.target_dips - 1)]
    cards = []
    remaining = budget
    if remaining > starter.target_dips and rng.random() < 0.35:
        cards.append((starter, starter.target_dips))
        remaining -= starter.target_dips
    while remaining > water.target_dips:
        cards.append((water, water.target_dips))
        remaining -= water.target_dips
    if remaining <= starter.target_dips and rng.random() < 0.3:
        cards.append((starter, remaining))
    else:
        cards.append((water, remaining))
    return cards


def _moment(day: datetime.date, rng: random.Random) -> datetime.datetime:
    local = datetime.datetime.combine(day, datetime.time(6, 30)) + datetime.timedelta(minutes=rng.randint(0, 720))
    return timezone.make_aware(local)


def member_plans(seeder: "LoadSeeder") -> list:
    """Per member: (joined_at, [(challenge, dips, [(dip_date, created_at), ...]), ...]), oldest card first."""
    # One generator for every plan (the cards step draws from it too): the same seed gives the same club.
    seeder.plan_rng = plan_rng = random.Random(seeder.seed)
    budgets, with_bench_member = dip_budgets(seeder, plan_rng)
    plans = []
    for index, budget in enumerate(budgets):
        cards = cards_for(seeder, budget, plan_rng, bench_member=with_bench_member and index == 0)
        total = sum(dips for _, dips in cards)
        # Dates backwards from a recent last dip, one dip per day at most.
        day = seeder.today - datetime.timedelta(days=plan_rng.randint(0, 10))
        days = []
        for _ in range(total):
            days.append(day)
            day -= datetime.timedelta(days=plan_rng.choice(DIP_GAPS_DAYS))
        days.reverse()
        moments = []
        for dip_day in days:
            moment = min(_moment(dip_day, plan_rng), seeder.now)
            moments.append((timezone.localdate(moment), moment))
        first = moments[0][1] if moments else seeder.now - datetime.timedelta(days=plan_rng.randint(1, 30))
        joined = first - datetime.timedelta(days=plan_rng.randint(1, 60), minutes=plan_rng.randint(0, 600))
        laid_out, cursor = [], 0
        for challenge, dips in cards:
            laid_out.append((challenge, dips, moments[cursor : cursor + dips]))
            cursor += dips
        plans.append((joined, laid_out))
    return plans
