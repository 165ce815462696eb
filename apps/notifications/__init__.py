"""Notifications: delivery (queue, mail, push, retries, quiet hours, batching) and the registry of what members
are told. Its modules import in a line, each only from those below it (`python tools/import_cycles.py
apps/notifications`, walked by tests/notifications/test_registry.py), top to bottom:

    apps (ready: imports kinds, tasks, every app's notices.py) · urls · templatetags
    views · push_views · selectors · tasks (each task runs work from below; registers itself with queueing)
    push (Web Push: what is sent, how it is recorded) · services (re-exports its submodules)
    services.delivery (mails sent, recovery of notices and mails, unsubscribe)
    services.club_messages · services.mail_queue
    services.push_subscriptions · notices (notice_send, notices_send) · kinds · messages
    outbox (the one claim -> send -> record -> recover path of mails and notices) · claims
    models · registry · links · queueing (the seam: work modules enqueue tasks by name) · push_session
    push_transport · refusals

Nothing below tasks.py imports it: a work module that queues a task calls queueing (mails_enqueue,
notices_enqueue, ...), which enqueues the task tasks.py registered, so queued rows name
`apps.notifications.tasks.<name>` as before.
"""
