"""The migrations this code knows, read from disk once per process (the code does not change under a
running process; the database's applied list is read on every look)."""

from functools import lru_cache

from django.db.migrations.loader import MigrationLoader


@lru_cache(maxsize=1)
def known_migrations() -> tuple[tuple[tuple[str, str], tuple[tuple[str, str], ...]], ...]:
    """Every migration of the graph, with the ones it replaces (a squashed migration counts as applied when
    all of those are)."""
    # Without a connection: no query, so the first look in a process costs what every later one does.
    loader = MigrationLoader(None, ignore_no_migrations=True)
    return tuple(
        (key, tuple(getattr(loader.graph.nodes[key], "replaces", None) or ())) for key in sorted(loader.graph.nodes)
    )
