"""The one script every page loads: the service worker's registration (frontend/src/pwa/register.ts)."""

import re

SW_REGISTRATION = re.compile(r'<script type="module" crossorigin="" src="/static/assets/pwa-[\w-]+\.js"></script>')


def without_sw_registration(html: str) -> str:
    """The page without its service worker registration, for tests about the page's own scripts."""
    return SW_REGISTRATION.sub("", html)
