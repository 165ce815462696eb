"""Issue 32's paper cut: the README's `DEFAULT_FROM_EMAIL="…"` kept its quotes in a Docker env file and every
mail was refused (501 MAIL FROM). Quotes around a whole value are dropped now, and the shipped .env.example's
sender goes through a real SMTP server (tests/mailbox.py) as it is written there."""

import pytest
from django.core.management import call_command

from config.settings.env import env_bool, env_int, env_list, env_secret, env_str, unquote

from .env_file import env_example


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ('"Club <noreply@club.example>"', "Club <noreply@club.example>"),
        ("'Club <noreply@club.example>'", "Club <noreply@club.example>"),
        ("Club <noreply@club.example>", "Club <noreply@club.example>"),
        ('"half', '"half'),
        ('Jan "de Vries" <jan@club.example>', 'Jan "de Vries" <jan@club.example>'),
        ('""', ""),
    ],
)
def test_one_pair_of_surrounding_quotes_is_dropped(raw, value):
    assert unquote(raw) == value


def test_every_helper_reads_through_the_quotes(monkeypatch):
    monkeypatch.setenv("KOUD_T_STR", '"tekst"')
    monkeypatch.setenv("KOUD_T_BOOL", "'true'")
    monkeypatch.setenv("KOUD_T_INT", '"42"')
    monkeypatch.setenv("KOUD_T_LIST", '"a.example,b.example"')
    monkeypatch.setenv("KOUD_T_SECRET", '"' + "s" * 40 + '"')
    assert env_str("KOUD_T_STR") == "tekst"
    assert env_bool("KOUD_T_BOOL") is True
    assert env_int("KOUD_T_INT", 0) == 42
    assert env_list("KOUD_T_LIST") == ["a.example", "b.example"]
    assert env_secret("KOUD_T_SECRET") == "s" * 40


@pytest.mark.parametrize("quoted", [False, True], ids=["as-shipped", "in-quotes"])
def test_mail_goes_out_with_the_sender_of_env_example(quoted, monkeypatch, settings, smtp_server):
    shipped = env_example()["DEFAULT_FROM_EMAIL"]
    assert shipped == "Koud water challenge <noreply@koudwater.example>"
    monkeypatch.setenv("DEFAULT_FROM_EMAIL", f'"{shipped}"' if quoted else shipped)
    settings.DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL")  # as config/settings/base.py reads it

    call_command("sendtestemail", "lid@example.nl")  # the README's check of the mail settings

    (envelope,) = smtp_server.envelopes
    assert envelope.mail_from == "noreply@koudwater.example"
    assert smtp_server.only()["From"] == "Koud water challenge <noreply@koudwater.example>"
