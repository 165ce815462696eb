"""Stamp cards, dips (some with a real photo file) and the badges their milestones earn."""

import datetime
import io
import random
from typing import TYPE_CHECKING

from django.core.files.base import ContentFile
from PIL import Image, ImageDraw

from apps.accounts.models import User
from apps.challenges.models import Dip, UserBadge, UserChallenge, photo_storage

from .common import PHOTO_FOLDER

if TYPE_CHECKING:
    from .seeder import LoadSeeder


def _tiny_jpegs(count: int, side: int) -> list[bytes]:
    """Real JPEGs: a cold-water gradient in a few shades, so the admin collage shows something."""
    images = []
    for index in range(count):
        image = Image.new("RGB", (side, side))
        draw = ImageDraw.Draw(image)
        for y in range(side):
            shade = int(255 * y / side)
            draw.line([(0, y), (side, y)], fill=(20 + index * 12 % 80, 90 + shade // 3, 140 + shade // 3))
        draw.ellipse([side // 4, side // 4, 3 * side // 4, 3 * side // 4], outline=(255, 255, 255))
        out = io.BytesIO()
        image.save(out, format="JPEG", quality=80)
        images.append(out.getvalue())
    return images


def write_cards(seeder: "LoadSeeder", users: list[User], member_plans: list) -> tuple[list[UserChallenge], list]:
    """Every member's cards, oldest first; the last one is active. Returns the cards and each card's dips."""
    plan_rng = seeder.plan_rng
    cards = []
    card_plans = []  # per card, in the same order: its [(dip_date, created_at), ...]
    for user, (joined, laid_out) in zip(users, member_plans, strict=True):
        previous_end = joined
        for position, (challenge, dips, moments) in enumerate(laid_out):
            active = position == len(laid_out) - 1
            if moments:
                started = max(previous_end, moments[0][1] - datetime.timedelta(minutes=plan_rng.randint(5, 600)))
            else:
                started = previous_end + (seeder.now - previous_end) * plan_rng.random()
            completed = moments[-1][1] if dips == challenge.target_dips else None
            cards.append(
                UserChallenge(
                    user=user,
                    challenge=challenge,
                    challenge_type=challenge.category,
                    is_active=active,
                    started_at=started,
                    completed_at=completed,
                )
            )
            card_plans.append(moments)
            previous_end = completed or started
    return UserChallenge.objects.bulk_create(cards, batch_size=seeder.batch), card_plans


def write_dips(seeder: "LoadSeeder", cards: list[UserChallenge], card_plans: list) -> tuple[int, int, int]:
    """The dips of every card (some with a photo file) and a badge for every milestone reached."""
    photo_dips = photo_choice(seeder, cards, card_plans)
    full_images, thumbnails = _tiny_jpegs(12, 64), _tiny_jpegs(12, 32)
    storage = photo_storage()
    dips_batch: list[Dip] = []
    awards: list[UserBadge] = []
    dip_total = photo_total = 0
    for card_index, (card, moments) in enumerate(zip(cards, card_plans, strict=True)):
        milestones = seeder.badges.get(card.challenge_id, {})
        for number, (dip_date, moment) in enumerate(moments, start=1):
            photo = thumbnail = ""
            if (card_index, number) in photo_dips:
                variant = (card.pk + number) % len(full_images)
                stem = f"{PHOTO_FOLDER}/{card.user_id}/{card.pk}-{number:03d}"
                photo = storage.save(f"{stem}.jpg", ContentFile(full_images[variant]))
                seeder.written_files.append(photo)
                thumbnail = storage.save(f"{stem}.thumb.jpg", ContentFile(thumbnails[variant]))
                seeder.written_files.append(thumbnail)
                photo_total += 1
            dips_batch.append(
                Dip(
                    user_id=card.user_id,
                    user_challenge=card,
                    number=number,
                    dip_date=dip_date,
                    photo=photo,
                    thumbnail=thumbnail,
                    created_at=moment,
                )
            )
            if number in milestones:
                awards.append(
                    UserBadge(user_id=card.user_id, badge_id=milestones[number], user_challenge=card, earned_at=moment)
                )
            if len(dips_batch) >= seeder.batch:
                Dip.objects.bulk_create(dips_batch)
                dip_total += len(dips_batch)
                dips_batch = []
    if dips_batch:
        Dip.objects.bulk_create(dips_batch)
        dip_total += len(dips_batch)
    UserBadge.objects.bulk_create(awards, batch_size=seeder.batch)
    return dip_total, photo_total, len(awards)


def photo_choice(seeder: "LoadSeeder", cards: list[UserChallenge], card_plans: list) -> set[tuple[int, int]]:
    """Which dips get a photo: every fifth dip of the bench member's active card, the rest at random."""
    rng = random.Random(seeder.seed + 2)
    chosen: set[tuple[int, int]] = set()
    bench_user = cards[0].user_id if cards else None
    for index, card in enumerate(cards):
        if card.user_id == bench_user and card.is_active:
            for number in range(5, len(card_plans[index]) + 1, 5):
                if len(chosen) < seeder.photos:
                    chosen.add((index, number))
    every_dip = [(index, number) for index, moments in enumerate(card_plans) for number in range(1, len(moments) + 1)]
    remaining = [key for key in every_dip if key not in chosen]
    chosen.update(rng.sample(remaining, min(seeder.photos - len(chosen), len(remaining))))
    return chosen
