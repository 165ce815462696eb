"""What other apps may hear about invitations without invitations knowing them.

`invitations_created` is sent inside the transaction that created the invitations, so a receiver's writes
(the mail app queues the invitation mails) commit or roll back with them.
"""

from django.dispatch import Signal

invitations_created = Signal()  # kwargs: invitations (a list of Invitation)
