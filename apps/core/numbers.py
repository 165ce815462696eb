"""Whole numbers from user input (form fields, query strings): ASCII digits only, and not too many of them.

`str.isdigit()` and `int()` accept far more than 0-9: `"²".isdigit()` is True while `int("²")` fails, `int()`
reads Arabic-Indic or full-width digits, and 5,000 digits exceed Python's limit for turning text into an int.
Reading every number a user sends through this one function makes each of those a plain "not a number".
"""

import re

# 18 digits always fit a 64-bit database column (bigint holds 19, but not every 19-digit number).
ID_MAX_DIGITS = 18

_ASCII_DIGITS = re.compile(r"[0-9]+", re.ASCII)


def whole_number(text: str | None, *, max_digits: int = ID_MAX_DIGITS) -> int | None:
    """The number `text` holds (0-9 only, at most `max_digits` of them), else None. No sign, no spaces."""
    if not isinstance(text, str) or len(text) > max_digits or not _ASCII_DIGITS.fullmatch(text):
        return None
    return int(text)
