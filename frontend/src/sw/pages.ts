/*
 * Pages in the service worker.
 * - A page is kept only when the server marked it as the signed-in member's own (X-Koud-Member); a page of
 *   another member, or any page while signed out, empties the page cache, so one member's page is never
 *   shown to another.
 * - A kept page that the server cached for this member (X-Koud-Page, a digest of what it shows) is shown at
 *   once, before the network answers, and fetched again behind it. When the fresh page differs, the page is
 *   told (PAGE_OUTDATED) and swaps it in. Shown at once only when all of these hold: the member cookie names
 *   the member the pages were kept for (a new session waits for the network), nothing was written from this
 *   phone since the page was kept (after a dip the next page is the server's), it was kept less than
 *   SHOW_KEPT_FOR_MS ago, and the member did not ask for a reload.
 * - Otherwise network first; without network the kept page, else the Dutch offline page.
 * - After a dip (the stamp card tells the worker, PAGES_AFTER_DIP; the worker's own queued taps too) the pages a
 *   member opens next (PAGES_KEPT_AFTER_DIP) are asked from the server again behind the page and kept: asked
 *   after the dip was written, they show its new count, and the next visit opens them at once (issue 37).
 *   Kept only when the server's answer names the member the worker keeps pages for; an answer asked earlier
 *   never replaces a copy asked later, so a kept count never goes back to an older one.
 */
import {
  MEMBER_COOKIE,
  MEMBER_HEADER,
  OFFLINE_URL,
  PAGE_CACHE_PREFIX,
  PAGE_OUTDATED,
  clearPageCaches,
  currentMember,
} from "../pwa/shared";

declare const self: ServiceWorkerGlobalScope;

export const OFFLINE_CACHE = "koud-offline-page";
/** Set by the server on a page it cached for the member (apps/core/page_cache.py). */
const PAGE_DIGEST_HEADER = "X-Koud-Page";
/** When the kept copy was asked for, in ms since the epoch (added here, not by the server). */
const KEPT_AT_HEADER = "X-Koud-Kept-At";
/** In the member's page cache: when this phone last sent a write (a dip, a form, a sign-in). */
const WRITTEN_KEY = "/__koud/written";
const SHOW_KEPT_FOR_MS = 12 * 60 * 60 * 1000;
/** The pages a member opens right after a dip: her count is on both. */
export const PAGES_KEPT_AFTER_DIP = ["/dashboard", "/challenge"];

/** The navigation's answer: the kept page at once when it may be shown, else the network's. */
export async function servePage(event: FetchEvent): Promise<Response> {
  const { request } = event;
  const kept = await keptToShowAtOnce(request);
  if (kept === undefined) return networkFirstPage(request);
  event.waitUntil(refreshBehind(request, kept, event.resultingClientId));
  return kept;
}

/** Called for every request that writes: the next page comes from the server, with what was written. */
export async function markWritten(): Promise<void> {
  const member = await currentMember();
  if (member === null) return;
  const cache = await caches.open(`${PAGE_CACHE_PREFIX}${member}`);
  await cache.put(WRITTEN_KEY, new Response(String(Date.now())));
}

/**
 * After a dip the server stored (its answer came back): ask the server for the pages a member opens next and keep
 * them, so that the next visit shows the new count at once. Nothing is kept for a session that is not the kept
 * pages' member (another member signed in meanwhile, or nobody): then the next visit goes to the network.
 */
export async function refreshAfterDip(paths: readonly string[] = PAGES_KEPT_AFTER_DIP): Promise<void> {
  const member = await currentMember();
  if (member === null) return;
  const session = await sessionMember();
  if (session.known && session.member !== member) return;
  await Promise.all(
    paths.map(async (path) => {
      const request = new Request(new URL(path, self.location.origin).href, {
        credentials: "same-origin",
        headers: { Accept: "text/html" },
        redirect: "manual",
      });
      const askedAt = Date.now();
      let response: Response;
      try {
        response = await fetch(request);
      } catch {
        return; // no network: the next visit asks again
      }
      // Only the same member's own page: never one of another session, and a redirect is not a page.
      if (response.headers.get(MEMBER_HEADER) !== member || response.status !== 200) return;
      await keepPage(request, response, askedAt);
    }),
  );
}

async function keptToShowAtOnce(request: Request): Promise<Response | undefined> {
  // A reload is the member asking for the server's page.
  if (request.cache === "no-cache" || request.cache === "reload" || request.cache === "no-store") return undefined;
  const member = await currentMember();
  if (member === null || (await memberCookie()) !== member) return undefined;
  const cache = await caches.open(`${PAGE_CACHE_PREFIX}${member}`);
  const kept = await cache.match(request, { ignoreVary: true });
  if (kept === undefined || kept.headers.get(PAGE_DIGEST_HEADER) === null) return undefined;
  const keptAt = Number(kept.headers.get(KEPT_AT_HEADER) ?? 0);
  const written = await cache.match(WRITTEN_KEY);
  const writtenAt = written === undefined ? 0 : Number(await written.text());
  if (!(keptAt > writtenAt) || Date.now() - keptAt > SHOW_KEPT_FOR_MS) return undefined;
  return kept;
}

async function refreshBehind(request: Request, shown: Response, clientId: string): Promise<void> {
  const askedAt = Date.now();
  let fresh: Response;
  try {
    fresh = await fetch(request);
  } catch {
    return; // no network: the kept page is what there is
  }
  await keepPage(request, fresh, askedAt);
  const member = fresh.headers.get(MEMBER_HEADER);
  const digest = fresh.headers.get(PAGE_DIGEST_HEADER);
  if (member === shown.headers.get(MEMBER_HEADER) && digest !== null && digest === shown.headers.get(PAGE_DIGEST_HEADER)) {
    return;
  }
  const signedOut = member === null || member === "" || member !== shown.headers.get(MEMBER_HEADER);
  const client = await clientCalled(clientId);
  client?.postMessage({ type: PAGE_OUTDATED, signedOut });
}

/** The window the navigation made; it may still be on its way when the fresh page is quick. */
async function clientCalled(id: string): Promise<Client | undefined> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const client = await self.clients.get(id);
    if (client !== undefined) return client;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return undefined;
}

async function networkFirstPage(request: Request): Promise<Response> {
  const askedAt = Date.now();
  let response: Response;
  try {
    response = await fetch(request);
  } catch {
    return (await keptPage(request)) ?? (await offlinePage());
  }
  // A redirect may carry a message for the page it leads to: that page must come from the server.
  if (response.type === "opaqueredirect") await markWritten();
  await keepPage(request, response, askedAt);
  return response;
}

async function keepPage(request: Request, response: Response, askedAt: number): Promise<void> {
  const member = response.headers.get(MEMBER_HEADER);
  if (member === null || member === "") {
    // Signed out (or a page that belongs to nobody): nothing kept may outlive the session.
    await clearPageCaches();
    return;
  }
  const cacheName = `${PAGE_CACHE_PREFIX}${member}`;
  await clearPageCaches(cacheName);
  // Opened even for a page not to keep: its name says whose session this is (currentMember).
  const cache = await caches.open(cacheName);
  const cacheable =
    response.ok && response.type === "basic" && !(response.headers.get("Cache-Control") ?? "").includes("no-store");
  if (!cacheable) return;
  // An answer asked for before the one kept (two refreshes crossing) never replaces it: what was asked later
  // saw every write before it.
  const kept = await cache.match(request, { ignoreVary: true });
  if (kept !== undefined && Number(kept.headers.get(KEPT_AT_HEADER) ?? 0) > askedAt) return;
  const headers = new Headers(response.headers);
  headers.set(KEPT_AT_HEADER, String(askedAt));
  const copy = response.clone();
  await cache.put(request, new Response(await copy.blob(), { status: copy.status, statusText: copy.statusText, headers }));
}

async function keptPage(request: Request): Promise<Response | undefined> {
  // Kept pages live as long as the session that made them: once the server took the member cookie away
  // (signed out, or every session ended from elsewhere by a new password) or names someone else, nothing
  // kept is shown, offline either.
  const session = await sessionMember();
  if (session.known && (session.member === null || session.member !== (await currentMember()))) {
    await clearPageCaches();
    return undefined;
  }
  for (const name of await caches.keys()) {
    if (!name.startsWith(PAGE_CACHE_PREFIX)) continue;
    const match = await (await caches.open(name)).match(request, { ignoreVary: true, ignoreSearch: false });
    if (match !== undefined) return match;
  }
  return undefined;
}

async function offlinePage(): Promise<Response> {
  const cached = await caches.match(OFFLINE_URL, { cacheName: OFFLINE_CACHE, ignoreVary: true });
  return cached ?? new Response("Geen verbinding.", { status: 503, headers: { "Content-Type": "text/plain; charset=utf-8" } });
}

interface CookieStoreLike {
  get(name: string): Promise<{ value: string } | null | undefined>;
}

/** The member cookie, where the browser lets a worker read cookies (cookieStore); else null: network first. */
async function memberCookie(): Promise<string | null> {
  return (await sessionMember()).member;
}

/**
 * Who the browser's session is, as the server last said it in the member cookie (set and removed on every
 * answer of the app: config/middleware.py). `known` is false where a worker cannot read cookies; then the
 * kept pages' name is all there is to go by.
 */
export async function sessionMember(): Promise<{ known: boolean; member: string | null }> {
  const store = (self as unknown as { cookieStore?: CookieStoreLike }).cookieStore;
  if (store === undefined) return { known: false, member: null };
  try {
    return { known: true, member: (await store.get(MEMBER_COOKIE))?.value ?? null };
  } catch {
    return { known: false, member: null };
  }
}
