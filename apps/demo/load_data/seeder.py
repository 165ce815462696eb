"""The seeder: its numbers and clock, the catalogue it reads, and the steps in order."""

import random
import time

from django.contrib.auth.hashers import make_password
from django.core.management.base import CommandError
from django.utils import timezone

from apps.challenges.models import Badge, Challenge, photo_storage

from .common import LOAD_PASSWORD
from .dips import write_cards, write_dips
from .events import write_events
from .invitations import write_invitations
from .members import write_users
from .plans import member_plans


class LoadSeeder:
    plan_rng: random.Random  # set by plans.member_plans; the cards step draws from it too

    def __init__(self, options: dict, *, log):
        self.members = options["members"]
        self.dips_per_member = options["dips_per_member"]
        self.photos = options["photos"]
        self.invitations = options["invitations"]
        self.events = options["events"]
        self.seed = options["seed"]
        self.batch = options["batch_size"]
        self.log = log
        self.now = timezone.now()
        self.today = timezone.localdate(self.now)
        self.written_files: list[str] = []
        self._clock = time.monotonic()

    def _step(self, text: str):
        now = time.monotonic()
        self.log(f"  {text} ({now - self._clock:.1f} s)")
        self._clock = now

    def remove_written_files(self):
        storage = photo_storage()
        for name in self.written_files:
            storage.delete(name)

    # --- catalogue ---------------------------------------------------------------------------------

    def _catalogue(self):
        waterdieren = Challenge.objects.filter(category=Challenge.Category.WATERDIEREN).order_by("pk").first()
        starter = Challenge.objects.filter(category=Challenge.Category.NORMAL).order_by("target_dips", "pk").first()
        if waterdieren is None or starter is None:
            raise CommandError("De catalogus ontbreekt: draai eerst `python manage.py seed_catalogue`.")
        self.waterdieren, self.starter = waterdieren, starter
        self.badges: dict[int, dict[int, int]] = {}  # challenge id -> milestone -> badge id
        for badge in Badge.objects.filter(challenge__in=[waterdieren, starter]):
            self.badges.setdefault(badge.challenge_id, {})[badge.milestone_dips] = badge.pk

    # --- the run -----------------------------------------------------------------------------------

    def run(self):
        """Write the whole club, step by step; each step logs what it wrote and how long it took."""
        self._catalogue()
        password = make_password(LOAD_PASSWORD)  # once: PBKDF2 is slow on purpose
        self._step("wachtwoord gehasht")
        plans = member_plans(self)
        self._step(f"plannen gemaakt voor {self.members} leden")
        users, admin = write_users(self, plans, password)
        self._step(f"{len(users)} leden en 1 admin")
        cards, card_plans = write_cards(self, users, plans)
        self._step(f"{len(cards)} stempelkaarten")
        dip_total, photo_total, award_total = write_dips(self, cards, card_plans)
        self._step(f"{dip_total} plonsen, {photo_total} foto's, {award_total} badges")
        write_invitations(self, admin, users)
        self._step(f"{self.invitations} uitnodigingen")
        participants = write_events(self, users)
        self._step(f"{self.events} events met {participants} deelnemers")
