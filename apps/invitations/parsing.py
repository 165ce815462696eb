"""Pull e-mail addresses out of pasted free text (a mail header, a spreadsheet column, a chat).

Pure functions, no database. The text may be large (an admin can paste a 1 MB export), so every
step is linear: the text is first cut into tokens at characters that can never occur in an
address, and only tokens of a plausible length are matched against an anchored pattern. No
regular expression ever runs over the whole text with backtracking.
"""

import re

# RFC 5321: at most 254 characters in an address and 64 before the @; longer tokens cannot be one.
MAX_EMAIL_LENGTH = 254
MAX_LOCAL_LENGTH = 64

# Everything outside this set separates tokens: spaces, commas, semicolons, <>, quotes, colons...
_SEPARATORS = re.compile(r"[^A-Za-z0-9._%+\-@]+")

# The practical shape of an address (a subset of what Django's EmailValidator accepts, checked by
# the tests): dot-separated atoms before the @, dot-separated host labels after it, and a
# letters-only top-level domain. Each repetition is separated by a mandatory dot, so matching a
# token of at most 254 characters cannot backtrack badly.
_EMAIL_SHAPE = re.compile(
    r"(?P<local>[A-Za-z0-9_%+\-]+(?:\.[A-Za-z0-9_%+\-]+)*)"
    r"@(?:[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}"
)


def _candidate(token: str) -> str | None:
    # A full stop sticks to an address at the end of a sentence ("mail jan@x.nl.").
    token = token.strip(".")
    if len(token) > MAX_EMAIL_LENGTH:
        return None
    match = _EMAIL_SHAPE.fullmatch(token)
    if match is None or len(match["local"]) > MAX_LOCAL_LENGTH:
        return None
    return token.lower()


def extract_emails(text: str) -> list[str]:
    """Valid-looking addresses in `text`, lower-cased, de-duplicated, in order of first appearance."""
    found: dict[str, None] = {}  # an ordered set
    checked: set[str] = set()  # pasted lists repeat addresses: check each distinct token once
    for token in _SEPARATORS.split(text or ""):
        if "@" not in token or token in checked:
            continue
        checked.add(token)
        email = _candidate(token)
        if email is not None:
            found.setdefault(email, None)
    return list(found)


# An address broken by a space around its @ ("fleur @ example.nl") is put back together from the text for the
# message; at most this many characters of spaces between its parts.
_GAP_MAX = 3
# The admin reads these back: a long paste names at most this many, and how many more.
UNREADABLE_SHOWN = 10


def unreadable_addresses(text: str) -> list[str]:
    """What looks meant as an address but is none ("fleur @ example.nl", "hanna@example..nl"), as pasted, in
    order, once each: the bulk invitation names them instead of dropping them without a word. Linear, like
    extract_emails: the text is cut into tokens, and a lone or dangling @ takes its neighbours across spaces."""
    text = text or ""
    tokens = [(match.start(), match.end()) for match in re.finditer(r"[A-Za-z0-9._%+\-@]+", text)]
    found: dict[str, None] = {}
    skip_until = -1
    for index, (start, end) in enumerate(tokens):
        if start < skip_until:
            continue
        token = text[start:end]
        if "@" not in token or _candidate(token) is not None:
            continue
        first, last = start, end
        if token.startswith("@") and index > 0 and _spaces_only(text[tokens[index - 1][1] : start]):
            first = tokens[index - 1][0]
        if token.endswith("@") and index + 1 < len(tokens) and _spaces_only(text[end : tokens[index + 1][0]]):
            last = tokens[index + 1][1]
        skip_until = last
        found.setdefault(text[first:last][:MAX_EMAIL_LENGTH], None)
    return list(found)


def _spaces_only(gap: str) -> bool:
    return 0 < len(gap) <= _GAP_MAX and not gap.strip(" \t")
