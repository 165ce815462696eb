"""What accounts announce to the apps above them (accounts may not import them): the mails are queued there."""

from django.dispatch import Signal

# A member asked for a new e-mail address: a link to confirm it goes to that address. kwargs: user, email_address
email_change_requested = Signal()
# A member's new address is confirmed and in use: the old one is told. kwargs: user, old_email
email_changed = Signal()
