"""A copy edit of every refusal at once: code that reacts to a refusal must not notice (it reads the code)."""

from apps.core.errors import DomainError

REWORDED = "Anders gezegd: "


def reword_refusals(monkeypatch) -> None:
    """From now on every DomainError reads differently from today's Dutch sentence, wherever it is made."""
    made = DomainError.__init__

    def reworded(self, message: str = "", **kwargs) -> None:
        made(self, f"{REWORDED}{message}", **kwargs)

    monkeypatch.setattr(DomainError, "__init__", reworded)
