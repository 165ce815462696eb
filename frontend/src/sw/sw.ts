/// <reference lib="webworker" />
/*
 * The service worker, served at /sw.js with scope "/".
 * - The islands' JS and CSS are precached (Workbox); other static files are cached as they are used.
 * - Pages: network first. A page is kept only when the server marked it as the signed-in member's own
 *   (X-Koud-Member); a page of another member, or any page while signed out, empties the page cache,
 *   so one member's page is never shown to another. Without network and without a kept copy, the
 *   Dutch offline page.
 * - Background Sync sends the dips tapped without signal (src/lib/offline-queue.ts).
 * - Web Push: every push shows a notification (src/pwa/notification.ts); a tap opens its page, in a window of
 *   the app that is already open when there is one.
 */
import { cleanupOutdatedCaches, precacheAndRoute } from "workbox-precaching";
import { registerRoute } from "workbox-routing";
import { StaleWhileRevalidate } from "workbox-strategies";
import { SYNC_TAG, flushQueue } from "../lib/offline-queue";
import { notificationFor, safePath } from "../pwa/notification";
import { SUBSCRIBE_URL, deviceLabel, keyBytes } from "../pwa/push-shared";
import {
  MEMBER_HEADER,
  OFFLINE_URL,
  PAGE_CACHE_PREFIX,
  PUSH_RESEND,
  SIGN_OUT_PATH,
  clearPageCaches,
  currentMember,
} from "../pwa/shared";

declare const self: ServiceWorkerGlobalScope;

const OFFLINE_CACHE = "koud-offline-page";
const STATIC_CACHE = "koud-static";

// The build's paths are relative to dist/, which Django serves under /static/; the worker lives at /.
const STATIC_URL = "/static/";
const underStatic = (url: string) => (url.startsWith("/") ? url : STATIC_URL + url);
precacheAndRoute(
  self.__WB_MANIFEST.map((entry) =>
    typeof entry === "string" ? underStatic(entry) : { ...entry, url: underStatic(entry.url) },
  ),
);
cleanupOutdatedCaches();

registerRoute(
  ({ url, request }) => url.origin === self.location.origin && url.pathname.startsWith("/static/") && request.method === "GET",
  new StaleWhileRevalidate({ cacheName: STATIC_CACHE }),
);

self.addEventListener("install", (event) => {
  // Fetched without cookies: the offline page is the same for everyone and holds nothing personal.
  event.waitUntil(
    caches.open(OFFLINE_CACHE).then((cache) => cache.add(new Request(OFFLINE_URL, { credentials: "omit" }))),
  );
  void self.skipWaiting();
});

self.addEventListener("activate", (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener("message", (event) => {
  const data: unknown = event.data;
  if (typeof data === "object" && data !== null && (data as { type?: unknown }).type === "signed-out") {
    event.waitUntil(clearPageCaches());
  }
  if (typeof data === "object" && data !== null && (data as { type?: unknown }).type === PUSH_RESEND) {
    const { key, csrf } = data as { key?: unknown; csrf?: unknown };
    if (typeof key === "string" && typeof csrf === "string") event.waitUntil(resendSubscription(key, csrf));
  }
});

self.addEventListener("fetch", (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.method === "POST" && url.pathname === SIGN_OUT_PATH) {
    event.respondWith(clearPageCaches().then(() => fetch(request)));
    return;
  }
  if (request.mode === "navigate" && request.method === "GET") {
    event.respondWith(networkFirstPage(request));
  }
});

self.addEventListener("sync", (event) => {
  const sync = event as ExtendableEvent & { tag?: string };
  if (sync.tag === SYNC_TAG) sync.waitUntil(sendQueuedTaps());
});

self.addEventListener("push", (event) => {
  let payload: string | null = null;
  try {
    payload = event.data?.text() ?? null;
  } catch {
    payload = null;
  }
  const shown = notificationFor(payload, self.location.origin);
  event.waitUntil(self.registration.showNotification(shown.title, shown.options));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const data: unknown = event.notification.data;
  const url = safePath(typeof data === "object" && data !== null ? (data as { url?: unknown }).url : null, self.location.origin);
  event.waitUntil(openPage(url));
});

/** The page asked (once per opening of the app): send this browser's subscription again, or make a new one if
 * the browser dropped it. A failure waits for the next opening. */
async function resendSubscription(key: string, csrf: string): Promise<void> {
  try {
    const subscription =
      (await self.registration.pushManager.getSubscription()) ??
      (await self.registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) }));
    await fetch(SUBSCRIBE_URL, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: JSON.stringify({ subscription: subscription.toJSON(), device: deviceLabel(self.navigator.userAgent) }),
    });
  } catch {
    // No push service or no connection right now.
  }
}

async function openPage(path: string): Promise<void> {
  const target = new URL(path, self.location.origin).href;
  for (const client of await self.clients.matchAll({ type: "window", includeUncontrolled: true })) {
    if (new URL(client.url).origin !== self.location.origin) continue;
    const windowClient = client as WindowClient;
    try {
      await windowClient.focus();
    } catch {
      // Focus needs the tap's activation; without it, navigating the open window is still right.
    }
    const navigated = await windowClient.navigate(target).catch(() => null);
    if (navigated !== null) return;
  }
  await self.clients.openWindow(target);
}

async function sendQueuedTaps(): Promise<void> {
  // Only the taps of the member whose session the browser now holds (A's taps never go with B's).
  const member = await currentMember();
  if (member === null) return; // signed out: the taps wait for their member's next page
  const results = await flushQueue({ member });
  // A tap that found no connection keeps waiting: fail the sync so that the browser tries again.
  if (results.some((result) => result.status === 0)) throw new Error("Nog geen verbinding");
  for (const client of await self.clients.matchAll({ type: "window" })) client.postMessage({ type: "taps-sent" });
}

async function networkFirstPage(request: Request): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(request);
  } catch {
    return (await keptPage(request)) ?? (await offlinePage());
  }
  await keepPage(request, response);
  return response;
}

async function keepPage(request: Request, response: Response): Promise<void> {
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
  if (cacheable) await cache.put(request, response.clone());
}

async function keptPage(request: Request): Promise<Response | undefined> {
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
