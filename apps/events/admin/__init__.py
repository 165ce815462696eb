"""The Django admin of the events app, one module per subject; importing them registers the admins."""

from . import events, guests, signups

__all__ = ["events", "guests", "signups"]
