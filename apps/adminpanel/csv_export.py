"""The newsletter CSV: a byte-order mark (so Excel reads UTF-8), header Email,Naam,Aangemeld op.

Cells a spreadsheet would run as a formula are neutralised (apps/core/spreadsheets.py); quoting follows
RFC 4180 through the csv module.
"""

import csv
import datetime
import io
from collections.abc import Iterable

from django.utils import timezone

from apps.core.spreadsheets import BOM, FORMULA_STARTS, neutralise

HEADER = ["Email", "Naam", "Aangemeld op"]
FORMULA_PREFIXES = tuple(FORMULA_STARTS)
MESSAGE_NO_SUBSCRIBERS = "Geen nieuwsbrief abonnees gevonden"


def subscribers_csv(rows: Iterable[tuple[str, str, object]]) -> str:
    """rows: (email, full name, created_at). Returns the whole file as text, BOM included."""
    return table_csv(HEADER, ([email, name or "", created_at] for email, name, created_at in rows))


def table_csv(header: list[str], rows: Iterable[Iterable]) -> str:
    """Any table: text neutralised, dates as dd-mm-yyyy (Amsterdam). The whole file, BOM included."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(header)
    for row in rows:
        writer.writerow([_cell(value) for value in row])
    return BOM + out.getvalue()


def _cell(value) -> str:
    if isinstance(value, datetime.datetime):
        return timezone.localtime(value).strftime("%d-%m-%Y")
    if isinstance(value, datetime.date):
        return value.strftime("%d-%m-%Y")
    return neutralise("" if value is None else str(value))


def subscribers_filename(today=None) -> str:
    today = today or timezone.localdate()
    return f"nieuwsbrief-abonnees-{today.isoformat()}.csv"
