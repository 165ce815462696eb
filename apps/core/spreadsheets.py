"""The one rule for every file a spreadsheet may open (CSV exports, the member's data export).

Cells a spreadsheet would run as a formula are neutralised with a leading apostrophe (OWASP's advice
for CSV injection). A byte-order mark makes Excel read a CSV as UTF-8.
"""

import re

BOM = "\ufeff"
FORMULA_STARTS = "=+-@\t\r"
CELL_SEPARATORS = ",;\t|\r\n"
# Where a spreadsheet may begin a cell: at the start, and after whatever it may take as a list separator
# (',' in English Excel, ';' in Dutch Excel, tab, '|') or a line break. Spaces and double quotes may come
# first: 'Jan;=1+1;x' is three cells in Dutch Excel, and so is 'Jan;"=1+1";x', whose middle cell is the
# quoted field "=1+1", a formula. The apostrophe goes right before the formula character, inside the quotes.
_CELL_START_BEFORE_FORMULA = re.compile(rf"(^|[{re.escape(CELL_SEPARATORS)}])([ \"]*)(?=[{re.escape(FORMULA_STARTS)}])")


def neutralise(value: str) -> str:
    """Put an apostrophe before every formula character that could start a cell, wherever it is split."""
    return _CELL_START_BEFORE_FORMULA.sub(lambda match: f"{match[1]}{match[2]}'", value)
