"""The caches, and what a cache that fails means for each use: it costs speed, never the page.

Without Redis every alias is the database cache (one table, `django_cache`, shared by every container).
With Redis (`REDIS_URL`), every call waits at most `timeout_ms` for a connection and as long for an
answer, and a process that saw Redis fail skips it for a few seconds (config/cache.py). Then:

- `default`: counters that must hold, allauth's failed sign-in limits (allauth uses this alias), the photo
  upload counter, allauth's used one-time codes. While Redis fails they are kept in the database cache
  (`database`): a limit must not become unlimited for an attacker because Redis is down, and the
  database is shared by every container as Redis is. A count starts again when the store switches.
- `pages`: the cached pages and their versions (apps/core/page_cache.py). A failure is a miss: the page
  is rendered and not stored. Never the database instead: versions kept in two stores would disagree
  once Redis answers again, and a page of an old version could be served.
- Sessions are not in the cache at all (`SESSION_ENGINE` is the database): a session ended at sign-out,
  or replaced at sign-in, while Redis failed would come back from it once Redis answers again.
"""

DATABASE_CACHE = {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "django_cache"}


def cache_settings(redis_url: str, *, timeout_ms: int = 500) -> dict:
    if not redis_url:
        return {"default": dict(DATABASE_CACHE), "pages": dict(DATABASE_CACHE)}

    def redis(fallback: str | None) -> dict:
        return {
            "BACKEND": "config.cache.RedisCache",
            "LOCATION": redis_url,
            "FALLBACK": fallback,
            # One new connection when a pooled one is dead (Redis restarted); a timeout is not tried again.
            # The backend builds redis's Retry from it (config/cache.py), so loading the settings imports no redis.
            "CONNECTION_RETRIES": 1,
            "OPTIONS": {
                "socket_connect_timeout": timeout_ms / 1000,
                "socket_timeout": timeout_ms / 1000,
            },
        }

    return {"default": redis(fallback="database"), "pages": redis(fallback=None), "database": dict(DATABASE_CACHE)}
