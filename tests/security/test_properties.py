"""Property-based tests (hypothesis) for the two functions that take whatever an admin pastes or a member types:
the bulk e-mail extraction and the newsletter CSV writer.

tests/invitations/test_parsing.py already checks that results from a small alphabet are valid, lower-case
and unique, and tests/adminpanel/test_csv.py that the CSV round-trips with formulas neutralised; the
properties here are different ones: addresses generated to be found, composition, order, idempotence,
case, and for the CSV losslessness, dates in any time zone, order and structure under hostile text.
"""

import csv
import datetime
import io
import re
import zoneinfo

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.utils import timezone
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from apps.adminpanel.csv_export import BOM, FORMULA_PREFIXES, HEADER, neutralise, subscribers_csv
from apps.invitations.parsing import MAX_EMAIL_LENGTH, MAX_LOCAL_LENGTH, extract_emails

FAST = settings(max_examples=150, deadline=None, database=None)

# --- strategies --------------------------------------------------------------------------------------

ATOM = st.text(alphabet="abcxyzABCXYZ0189_%+-", min_size=1, max_size=10)
LABEL = st.from_regex(r"[A-Za-z0-9]([A-Za-z0-9-]{0,8}[A-Za-z0-9])?", fullmatch=True)
TLD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=2, max_size=6)


@st.composite
def addresses(draw) -> str:
    """Addresses of the practical shape (what an admin pastes from a member list), any case."""
    local = ".".join(draw(st.lists(ATOM, min_size=1, max_size=3)))
    domain = ".".join(draw(st.lists(LABEL, min_size=1, max_size=3))) + "." + draw(TLD)
    assume(len(local) <= MAX_LOCAL_LENGTH and len(local) + 1 + len(domain) <= MAX_EMAIL_LENGTH)
    return f"{local}@{domain}"


# Characters that can never be part of an address: anything between two of them is its own token.
SEPARATOR = st.text(alphabet=" \t\n\r,;:<>()[]\"'|/\\!?*éü€😀\x00", min_size=1, max_size=4)
ANY_TEXT = st.text(max_size=200)


def first_seen(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


# --- extract_emails ------------------------------------------------------------------------------------


@FAST
@given(st.lists(addresses(), min_size=1, max_size=15), st.data())
def test_addresses_separated_by_anything_are_all_found_lower_cased_once_in_order(emails, data):
    text = "".join(data.draw(SEPARATOR) + email for email in emails) + data.draw(SEPARATOR)
    assert extract_emails(text) == first_seen([email.lower() for email in emails])


@FAST
@given(addresses(), ANY_TEXT, ANY_TEXT)
@example("jan@example.nl", "mail: ", ". Groet")
@example("Jan.Jansen@Example.NL", "<", ">")
def test_an_address_inside_any_text_is_found(email, before, after):
    found = extract_emails(f"{before} {email} {after}")
    assert email.lower() in found
    # Everything found is in the text, and is valid for Django as well.
    for address in found:
        validate_email(address)
        assert address == address.lower()
        assert address in f"{before} {email} {after}".lower()


@FAST
@given(ANY_TEXT, ANY_TEXT)
def test_extraction_composes_over_a_separator(left, right):
    """Pasting two texts together finds what each finds, in that order, without repeats."""
    assert extract_emails(f"{left}\n{right}") == first_seen(extract_emails(left) + extract_emails(right))


@FAST
@given(st.one_of(ANY_TEXT, st.lists(addresses(), max_size=8).map(" ".join)), st.sampled_from([" ", "\n", ", ", "; "]))
def test_extraction_is_idempotent_on_its_own_output(text, joiner):
    once = extract_emails(text)
    assert extract_emails(joiner.join(once)) == once


@FAST
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=300))
def test_case_does_not_matter(text):
    assert extract_emails(text.swapcase()) == extract_emails(text) == extract_emails(text.upper())


@FAST
@given(st.text(max_size=400))
def test_whatever_is_found_is_a_valid_address_within_the_rfc_limits(text):
    for address in extract_emails(text):
        local, _at, _domain = address.partition("@")
        assert len(address) <= MAX_EMAIL_LENGTH and len(local) <= MAX_LOCAL_LENGTH
        try:
            validate_email(address)
        except ValidationError as exc:  # pragma: no cover - the assertion message is the point
            raise AssertionError(f"{address!r} from {text!r} is not valid for Django") from exc


@FAST
@given(st.lists(addresses(), min_size=1, max_size=5), st.integers(min_value=2, max_value=4))
def test_repeats_in_any_case_count_once(emails, times):
    text = " ".join(email.swapcase() if i % 2 else email for i in range(times) for email in emails)
    assert extract_emails(text) == first_seen([email.lower() for email in emails])


# --- subscribers_csv -----------------------------------------------------------------------------------

# Text that tries to break out of its cell or to become a formula: quotes, separators, line breaks, prefixes.
HOSTILE_CELL = st.text(alphabet="=+-@\t\r\n\",;' aZé€'|!()", max_size=25) | st.text(max_size=25)
MOMENTS = st.datetimes(
    min_value=datetime.datetime(2000, 1, 1),
    max_value=datetime.datetime(2100, 1, 1),
    timezones=st.sampled_from(
        [datetime.UTC, zoneinfo.ZoneInfo("Europe/Amsterdam"), zoneinfo.ZoneInfo("Pacific/Kiritimati")]
    ),
)
ROWS = st.lists(st.tuples(HOSTILE_CELL, HOSTILE_CELL, MOMENTS), max_size=15)


def parse(text: str) -> list[list[str]]:
    assert text.startswith(BOM) and not text.startswith(BOM + BOM)
    return list(csv.reader(io.StringIO(text[len(BOM) :], newline="")))


@FAST
@given(ROWS)
@example([('a@x.nl", "=1+1', "\"\r\n=cmd|' /C calc'!A0", datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC))])
def test_hostile_text_stays_inside_its_own_cell(rows):
    """Quotes, separators and line breaks never make an extra cell or row; a cell changes only by
    apostrophes in front of formula starts (at its start or after a separator a spreadsheet may split on),
    and takes nothing away. (The apostrophe makes "'=" and "=" look alike: a spreadsheet shows both as
    text, which is the point.)"""
    parsed = parse(subscribers_csv(rows))
    assert parsed[0] == HEADER
    assert len(parsed) == len(rows) + 1 and all(len(row) == 3 for row in parsed)
    for (email, name, _moment), (out_email, out_name, _date) in zip(rows, parsed[1:], strict=True):
        for original, cell in ((email, out_email), (name or "", out_name)):
            assert cell == neutralise(original)
            if original.startswith(FORMULA_PREFIXES):
                assert cell.startswith("'" + original[0])
            assert cell.replace("'", "") == original.replace("'", "")


@FAST
@given(ROWS)
def test_the_csv_keeps_the_order_of_the_rows(rows):
    parsed = parse(subscribers_csv(rows))
    assert [row[0] for row in parsed[1:]] == [neutralise(email) for email, _name, _moment in rows]


@FAST
@given(MOMENTS)
def test_the_sign_up_date_is_the_dutch_calendar_day_in_any_time_zone(moment):
    parsed = parse(subscribers_csv([("a@example.nl", "A", moment)]))
    day = datetime.datetime.strptime(parsed[1][2], "%d-%m-%Y").date()
    assert day == timezone.localtime(moment, zoneinfo.ZoneInfo("Europe/Amsterdam")).date()


@FAST
@given(ROWS)
def test_the_csv_is_valid_utf8_with_crlf_records_and_one_bom(rows):
    text = subscribers_csv(rows)
    data = text.encode("utf-8")
    assert data.startswith(b"\xef\xbb\xbf")
    assert text.endswith("\r\n")
    # Read back the way Excel and LibreOffice do: utf-8-sig drops the BOM, the header is clean.
    reader = csv.DictReader(io.StringIO(data.decode("utf-8-sig"), newline=""))
    assert reader.fieldnames == HEADER
    assert len(list(reader)) == len(rows)


# Text with the characters that matter close together, so that separators before formulas are common.
CELL_TEXT = st.text(max_size=40) | st.text(alphabet="ab =+-@\t\r\n,;|\"'", max_size=40)


@FAST
@given(CELL_TEXT)
@example("|=")  # not `"'" + value`: the apostrophe goes after the separator, where the second cell starts
@example('Jan;"=1+1";x')
def test_neutralising_only_adds_apostrophes_is_idempotent_and_leaves_no_cell_starting_with_a_formula(value):
    """The property the neutraliser has (an earlier version of this test claimed the result is the value or
    "'" + value, which fails whenever a formula follows a separator inside the text, e.g. "|="): it adds
    apostrophes and nothing else, running it twice changes nothing, and wherever a spreadsheet splits the
    text, no piece starts (after spaces and quotes) with a formula character."""
    once = neutralise(value)
    assert neutralise(once) == once
    assert not once.startswith(FORMULA_PREFIXES)
    assert once.replace("'", "") == value.replace("'", "") and once.count("'") >= value.count("'")
    for piece in re.split(r"[,;\t|\r\n]", once):
        assert not piece.lstrip(' "').startswith(FORMULA_PREFIXES), piece


@FAST
@given(ROWS)
def test_the_csv_is_the_same_every_time(rows):
    assert subscribers_csv(rows) == subscribers_csv(list(rows))
