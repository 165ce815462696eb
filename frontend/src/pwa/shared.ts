/** What the page and the service worker agree on. */

/** Set by the server on every page of a signed-in member (config/middleware.py): an opaque id. */
export const MEMBER_HEADER = "X-Koud-Member";
export const OFFLINE_URL = "/offline";
/** The sign-out form's action (apps/accounts/urls.py, name "logout"). */
export const SIGN_OUT_PATH = "/uitloggen";
export const PAGE_CACHE_PREFIX = "koud-pages-";

/** Deletes every kept page (all members), except the cache named `keep`. Works in pages and workers. */
export async function clearPageCaches(keep?: string): Promise<void> {
  const names = await caches.keys();
  await Promise.all(
    names.filter((name) => name.startsWith(PAGE_CACHE_PREFIX) && name !== keep).map((name) => caches.delete(name)),
  );
}

/**
 * The member signed in on this phone as the service worker last saw it: the mark of the one page cache
 * (the worker opens it on every page of a signed-in member and empties them all at sign-out). `null`
 * when signed out or not seen yet: then no queued tap may be sent by the worker.
 */
export async function currentMember(): Promise<string | null> {
  const names = (await caches.keys()).filter((name) => name.startsWith(PAGE_CACHE_PREFIX));
  return names.length === 1 ? names[0]!.slice(PAGE_CACHE_PREFIX.length) : null;
}

/** Set in sessionStorage once the push subscription was sent again in this opening of the app (register.ts). */
export const PUSH_RESENT_KEY = "koud-push-resent";
/** The message register.ts posts to the service worker: send this browser's push subscription again. */
export const PUSH_RESEND = "push-resend";

/** A cookie with the signed-in member's mark (config/middleware.py): while it names the member whose pages are
 * kept, the service worker may show a kept page before the network answers. */
export const MEMBER_COOKIE = "koud_member";
/** The message the service worker posts to a page it showed from the phone when the server's page differs. */
export const PAGE_OUTDATED = "page-outdated";
