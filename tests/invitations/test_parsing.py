import pytest
from django.core.validators import validate_email
from hypothesis import given, settings
from hypothesis import strategies as st

from apps.invitations.parsing import extract_emails


def test_finds_addresses_in_messy_text_lower_cased_deduplicated_in_order():
    text = """
    Hoi allemaal! Nieuwe zwemmers: "Jan Jansen" <Jan.Jansen@Example.NL>, piet@zwem.nl;
    mailto:Klaas+koud@ijs.example.com	(klaas)
    nogmaals jan.jansen@example.nl en PIET@ZWEM.NL. Mail ook marie-louise_v@sub.domein.org.
    """
    assert extract_emails(text) == [
        "jan.jansen@example.nl",
        "piet@zwem.nl",
        "klaas+koud@ijs.example.com",
        "marie-louise_v@sub.domein.org",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "jan@",
        "@example.nl",
        "jan@example",
        "jan@@example.nl",
        "a..b@example.nl",
        ".jan@example.nl@",
        "jan@-example.nl",
        "jan@example.n",
        "jan@exa_mple.nl",
        "geen adressen hier",
        "",
    ],
)
def test_ignores_what_is_not_an_address(text):
    assert extract_emails(text) == []


def test_a_full_stop_after_an_address_is_punctuation():
    assert extract_emails("Stuur het naar anna@koud.nl.") == ["anna@koud.nl"]


def test_one_overlong_address_is_skipped():
    assert extract_emails(("a" * 300) + "@example.nl ok@example.nl") == ["ok@example.nl"]


# A megabyte each, shaped to make a careless pattern backtrack. bench/text_parsing.py times the same texts.
HOSTILE_TEXTS = {
    "letters": lambda: "a" * 1_000_000,
    "letters-then-at": lambda: "a" * 1_000_000 + "@",
    "at-signs": lambda: "a@" * 500_000,
    "dots": lambda: ("a." * 500_000) + "@x",
    "long-labels": lambda: ("a" * 63 + "@" + "b" * 63 + ".") * 7_800,
    "many-addresses": lambda: "x@y.nl " * 140_000,
    "dashes": lambda: "-" * 1_000_000 + "@example.nl",
    "distinct": lambda: " ".join(f"zwemmer{i}@example.nl" for i in range(45_000)),
}


@pytest.mark.parametrize("kind", list(HOSTILE_TEXTS))
def test_a_megabyte_of_hostile_text_is_handled(kind):
    """How fast: bench/text_parsing.py (make bench) times these same texts; a test has no clock limit."""
    text = HOSTILE_TEXTS[kind]()
    assert len(text) >= 900_000
    found = extract_emails(text)
    assert all(len(email) <= 254 for email in found)
    assert found == list(dict.fromkeys(found))


@settings(max_examples=200, deadline=None, database=None)
@given(st.text(alphabet=st.sampled_from("abcXYZ019.-_+@ ,;<>\n\"'"), max_size=300))
def test_every_result_is_a_valid_lower_case_address_found_once(text):
    found = extract_emails(text)
    assert len(found) == len(set(found))
    for email in found:
        assert email == email.lower()
        validate_email(email)
