"""The newsletter CSV: a byte-order mark (so Excel reads UTF-8), header Email,Naam,Aangemeld op.

Cells a spreadsheet would run as a formula are neutralised with a leading apostrophe (OWASP's advice
for CSV injection); quoting follows RFC 4180 through the csv module. `neutralise` is the one rule for
every export a spreadsheet may open.
"""

import csv
import io
import re
from collections.abc import Iterable

from django.utils import timezone

BOM = "\ufeff"
HEADER = ["Email", "Naam", "Aangemeld op"]
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
MESSAGE_NO_SUBSCRIBERS = "Geen nieuwsbrief abonnees gevonden"
# Where a spreadsheet may begin a cell: at the start, and after whatever it may take as a list separator
# (',' in English Excel, ';' in Dutch Excel, tab, '|') or a line break, quotes or not. So 'Jan;=1+1;x' is
# three cells in Dutch Excel, and the middle one must not start with '='.
_CELL_START_BEFORE_FORMULA = re.compile(r"(^|[,;\t|\r\n])( *)(?=[=+\-@\t\r])")


def neutralise(value: str) -> str:
    """Put an apostrophe before every formula character that could start a cell, wherever it is split."""
    return _CELL_START_BEFORE_FORMULA.sub(lambda match: f"{match[1]}{match[2]}'", value)


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
