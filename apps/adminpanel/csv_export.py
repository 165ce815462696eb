"""The newsletter CSV: a byte-order mark (so Excel reads UTF-8), header Email,Naam,Aangemeld op.

Cells a spreadsheet would run as a formula are neutralised (apps/core/spreadsheets.py); quoting follows
RFC 4180 through the csv module.
"""

import csv
import io
from collections.abc import Iterable

from django.utils import timezone

from apps.core.spreadsheets import BOM, neutralise

HEADER = ["Email", "Naam", "Aangemeld op"]
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
MESSAGE_NO_SUBSCRIBERS = "Geen nieuwsbrief abonnees gevonden"


def subscribers_csv(rows: Iterable[tuple[str, str, object]]) -> str:
    """rows: (email, full name, created_at). Returns the whole file as text, BOM included."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(HEADER)
    for email, name, created_at in rows:
        writer.writerow(
            [neutralise(email), neutralise(name or ""), timezone.localtime(created_at).strftime("%d-%m-%Y")]
        )
    return BOM + out.getvalue()


def subscribers_filename(today=None) -> str:
    today = today or timezone.localdate()
    return f"nieuwsbrief-abonnees-{today.isoformat()}.csv"
