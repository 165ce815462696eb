"""The product's numbers, pinned here and only here.

Every other test reads the constant it tests (a dip undone at `UNDO_WINDOW`, refused a second later), so it
keeps testing the behaviour when a number changes; this file is where a number that differs from the product
(a 15-minute undo, a tap accepted after 4 days, another milestone) fails, and what changes with the product.
"""

import datetime
import re
from pathlib import Path

from apps.challenges.catalogue import CHALLENGES, WATERDIEREN_BADGES
from apps.challenges.services.dip_rules import TAP_TIME_MAX_AGE
from apps.challenges.services.dips import MESSAGE_UNDO_TOO_LATE, UNDO_WINDOW

# The Waterdieren Stempelkaart: six badges on the way to 100 dips.
MILESTONES = [
    (5, "Waterslak"),
    (10, "Kikker"),
    (25, "Meerkoet"),
    (50, "Aalscholver"),
    (75, "Meerval"),
    (100, "IJsvogel"),
]


def test_a_dip_can_be_undone_for_ten_minutes():
    assert UNDO_WINDOW == datetime.timedelta(minutes=10)
    assert "tot 10 minuten na het registreren" in MESSAGE_UNDO_TOO_LATE


def test_the_stamp_card_tells_the_same_undo_window():
    # The island says it before asking the server; wherever its text lives, it names the server's window.
    sources = Path(__file__).resolve().parent.parent / "frontend" / "src"
    said = {
        int(minutes)
        for path in sources.rglob("*.ts*")
        if not path.name.endswith((".test.ts", ".test.tsx"))
        for minutes in re.findall(r"tot (\d+) minuten na het registreren", path.read_text())
    }
    assert said == {UNDO_WINDOW // datetime.timedelta(minutes=1)}


def test_a_tap_without_signal_counts_at_its_moment_for_72_hours():
    assert TAP_TIME_MAX_AGE == datetime.timedelta(hours=72)


def test_the_waterdieren_card_has_its_six_milestones():
    assert [(milestone, name) for milestone, name, _text, _art in WATERDIEREN_BADGES] == MILESTONES
    waterdieren = next(entry for entry in CHALLENGES if entry["category"] == "waterdieren")
    assert waterdieren["target_dips"] == 100 and waterdieren["badges"] == WATERDIEREN_BADGES
