/// <reference lib="webworker" />
/*
 * The service worker, served at /sw.js with scope "/".
 * - The islands' JS and CSS are precached (Workbox); other static files are cached as they are used.
 * - Pages: the member's own, kept on the phone and shown at once when that is safe, else network first
 *   (src/sw/pages.ts).
 * - Background Sync sends the dips tapped without signal (src/lib/offline-queue.ts), and the shore list's taps
 *   (src/waterkant/shore-queue.ts).
 * - Web Push: every push shows a notification (src/pwa/notification.ts); a tap opens its page, in a window of
 *   the app that is already open when there is one.
 */
import { cleanupOutdatedCaches, precacheAndRoute } from "workbox-precaching";
import { registerRoute } from "workbox-routing";
import { StaleWhileRevalidate } from "workbox-strategies";
import { SYNC_TAG, flushQueue } from "../lib/offline-queue";
import { SHORE_SYNC_TAG, sendWaitingTaps } from "../waterkant/shore-queue";
import { notificationFor, safePath } from "../pwa/notification";
import { SUBSCRIBE_URL, deviceLabel, keyBytes } from "../pwa/push-shared";
import { PAGES_AFTER_DIP } from "../lib/kept-pages";
import { OFFLINE_URL, PUSH_RESEND, SIGN_OUT_PATH, clearPageCaches, currentMember } from "../pwa/shared";
import { OFFLINE_CACHE, markWritten, refreshAfterDip, servePage, sessionMember } from "./pages";

declare const self: ServiceWorkerGlobalScope;

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
  if (typeof data === "object" && data !== null && (data as { type?: unknown }).type === PAGES_AFTER_DIP) {
    event.waitUntil(refreshAfterDip());
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
    event.respondWith(servePage(event));
    return;
  }
  // A write from this phone (a dip, a form, a sign-in): the pages kept before it no longer show at once.
  if (request.method !== "GET" && request.method !== "HEAD") event.waitUntil(markWritten());
});

self.addEventListener("sync", (event) => {
  const sync = event as ExtendableEvent & { tag?: string };
  if (sync.tag === SYNC_TAG) sync.waitUntil(sendQueuedTaps());
  if (sync.tag === SHORE_SYNC_TAG) sync.waitUntil(sendShoreTaps());
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

/** Whose session the browser holds: the member cookie where the worker can read it, else the kept pages' name. */
async function sessionOwner(): Promise<string | null> {
  const session = await sessionMember();
  return session.known ? session.member : await currentMember();
}

async function sendShoreTaps(): Promise<void> {
  const member = await sessionOwner();
  if (member === null) return; // signed out: the taps wait for their organiser's next page
  const answers = await sendWaitingTaps({ member });
  // A tap that found no connection keeps waiting: fail the sync so that the browser tries again.
  if (answers.some((answer) => answer.status === 0)) throw new Error("Nog geen verbinding");
}

async function sendQueuedTaps(): Promise<void> {
  // Only the taps of the member whose session the browser now holds (A's taps never go with B's): the
  // member cookie says it where the worker can read it, else the kept pages' name. The server checks it
  // again (the tap's X-Koud-Member) and keeps another member's tap waiting.
  const member = await sessionOwner();
  if (member === null) return; // signed out: the taps wait for their member's next page
  const results = await flushQueue({ member });
  // A tap that found no connection keeps waiting: fail the sync so that the browser tries again.
  if (results.length > 0) await markWritten();
  if (results.some((result) => result.status >= 200 && result.status < 300)) await refreshAfterDip();
  if (results.some((result) => result.status === 0)) throw new Error("Nog geen verbinding");
  for (const client of await self.clients.matchAll({ type: "window" })) client.postMessage({ type: "taps-sent" });
}
