/*
 * Loaded by every page (templates/base.html): registers the service worker at /sw.js (scope "/") and
 * empties the kept pages the moment the member signs out, before the sign-out request leaves.
 */
import { SIGN_OUT_PATH, clearPageCaches } from "./shared";

const SW_URL = "/sw.js";

if ("serviceWorker" in navigator) {
  window.addEventListener("load", () => {
    navigator.serviceWorker.register(SW_URL, { scope: "/" }).catch(() => {
      // Without a worker the app still works online; nothing to tell the member.
    });
  });
}

document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement)) return;
  if (new URL(form.action, window.location.href).pathname !== SIGN_OUT_PATH) return;
  if ("caches" in window) void clearPageCaches();
  navigator.serviceWorker?.controller?.postMessage({ type: "signed-out" });
});
