/*
 * Loaded by every page (templates/base.html): registers the service worker at /sw.js (scope "/"), empties
 * the kept pages the moment the member signs out, before the sign-out request leaves, and swaps in the
 * server's page when the worker showed a kept one that has changed since.
 */
import { showNewerPage } from "./newer-page";
import { PAGE_OUTDATED, PUSH_RESEND, PUSH_RESENT_KEY, SIGN_OUT_PATH, clearPageCaches } from "./shared";

const SW_URL = "/sw.js";

if ("serviceWorker" in navigator) {
  window.addEventListener("load", () => {
    navigator.serviceWorker.register(SW_URL, { scope: "/" }).catch(() => {
      // Without a worker the app still works online; nothing to tell the member.
    });
  });
}

// Meldingen: once per opening of the app, a member whose browser allows notifications has the service worker send
// their subscription again (iOS drops stale ones silently). The key is on every member page (member_actions.html).
window.addEventListener("load", () => {
  const key = document.querySelector<HTMLElement>("[data-push-key]")?.dataset.pushKey ?? "";
  if (key === "" || !("Notification" in window) || Notification.permission !== "granted") return;
  if (sessionStorage.getItem(PUSH_RESENT_KEY) !== null) return;
  const csrf = /(?:^|;\s*)csrftoken=([^;]+)/.exec(document.cookie)?.[1] ?? "";
  void navigator.serviceWorker?.ready.then((registration) => {
    registration.active?.postMessage({ type: PUSH_RESEND, key, csrf: decodeURIComponent(csrf) });
    sessionStorage.setItem(PUSH_RESENT_KEY, "1");
  });
});

navigator.serviceWorker?.addEventListener("message", (event: MessageEvent) => {
  const data: unknown = event.data;
  if (typeof data !== "object" || data === null || (data as { type?: unknown }).type !== PAGE_OUTDATED) return;
  showNewerPage({ signedOut: (data as { signedOut?: unknown }).signedOut === true });
});

document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement)) return;
  // A page shown from the phone may carry the token of an earlier session: send the current one.
  const token = form.querySelector<HTMLInputElement>("input[name=csrfmiddlewaretoken]");
  const cookie = /(?:^|;\s*)csrftoken=([^;]+)/.exec(document.cookie)?.[1];
  if (token !== null && cookie !== undefined) token.value = decodeURIComponent(cookie);
  if (new URL(form.action, window.location.href).pathname !== SIGN_OUT_PATH) return;
  if ("caches" in window) void clearPageCaches();
  navigator.serviceWorker?.controller?.postMessage({ type: "signed-out" });
});
