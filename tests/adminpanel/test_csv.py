import datetime

import pytest
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from apps.adminpanel.csv_export import BOM, neutralise, subscribers_csv, subscribers_filename

MOMENT = timezone.make_aware(datetime.datetime(2026, 11, 21, 0, 30))  # Amsterdam time


def test_csv_byte_for_byte():
    rows = [
        ("anna@example.nl", "Anna de Vries", MOMENT),
        ("bert@example.nl", 'Bert "Walrus", de Tweede', MOMENT),
        ("cees@example.nl", '=HYPERLINK("http://evil")', MOMENT),
        ("dirk@example.nl", "Dirk\nNieuwe regel", MOMENT),
        ("@eva@example.nl", "-Eva", MOMENT),
        ("fien@example.nl", "+31 6 1234", MOMENT),
        ("gijs@example.nl", "\tTab", MOMENT),
    ]
    expected = (
        "\ufeffEmail,Naam,Aangemeld op\r\n"
        "anna@example.nl,Anna de Vries,21-11-2026\r\n"
        'bert@example.nl,"Bert ""Walrus"", de Tweede",21-11-2026\r\n'
        'cees@example.nl,"\'=HYPERLINK(""http://evil"")",21-11-2026\r\n'
        'dirk@example.nl,"Dirk\nNieuwe regel",21-11-2026\r\n'
        "'@eva@example.nl,'-Eva,21-11-2026\r\n"
        "fien@example.nl,'+31 6 1234,21-11-2026\r\n"
        "gijs@example.nl,'\tTab,21-11-2026\r\n"
    )
    assert subscribers_csv(rows) == expected
    assert subscribers_csv(rows).encode("utf-8")[:3] == b"\xef\xbb\xbf"


def test_filename_contains_the_date():
    assert subscribers_filename(datetime.date(2026, 11, 21)) == "nieuwsbrief-abonnees-2026-11-21.csv"


@given(st.lists(st.tuples(st.text(max_size=30), st.text(max_size=30)), max_size=20))
def test_csv_round_trips_and_never_starts_a_cell_with_a_formula(rows):
    import csv
    import io

    text = subscribers_csv([(email, name, MOMENT) for email, name in rows])
    assert text.startswith(BOM)
    parsed = list(csv.reader(io.StringIO(text[len(BOM) :], newline="")))
    assert parsed[0] == ["Email", "Naam", "Aangemeld op"]
    assert len(parsed) == len(rows) + 1
    for (email, name), (out_email, out_name, out_date) in zip(rows, parsed[1:], strict=True):
        assert out_email == neutralise(email) and out_name == neutralise(name)
        assert out_date == "21-11-2026"
        for cell in (out_email, out_name):
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r"))


@pytest.mark.parametrize(
    ("raw", "safe"),
    [
        ("Jan;=1+1;x", "Jan;'=1+1;x"),  # Dutch Excel splits on ';'
        ("Jan,+SUM(A1)", "Jan,'+SUM(A1)"),
        ("Jan; -2+3", "Jan; '-2+3"),
        ("a|@cmd", "a|'@cmd"),
        ("regel\n=1+1", "regel\n'=1+1"),
        # A quoted field after a separator is a cell of its own, and its content may be a formula.
        ('Jan;"=1+1";x', 'Jan;"\'=1+1";x'),
        ('Jan,"+SUM(A1)",x', 'Jan,"\'+SUM(A1)",x'),
        ('Jan; "-2+3"', 'Jan; "\'-2+3"'),
        ('a|""@cmd', 'a|""\'@cmd'),
        ('"=1+1"', '"\'=1+1"'),
        ('Zeg "hallo"', 'Zeg "hallo"'),
        ("Jan-Willem van der Berg", "Jan-Willem van der Berg"),
        ("jan+zwem@example.nl", "jan+zwem@example.nl"),
    ],
)
def test_every_piece_a_spreadsheet_could_split_off_is_neutralised(raw, safe):
    assert neutralise(raw) == safe


@given(st.text(alphabet=st.sampled_from('ab =+-@;,|"\t\r\n'), max_size=40))
def test_no_split_of_a_neutralised_cell_starts_with_a_formula(value):
    """Split anywhere a spreadsheet may split; spaces and quotes before the content do not hide a formula."""
    import re

    for piece in re.split(r"[,;\t|\r\n]", neutralise(value)):
        assert not piece.lstrip(' "').startswith(("=", "+", "-", "@")), (value, neutralise(value))
