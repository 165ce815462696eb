/** The stamp card and the service worker (src/sw/pages.ts) agree here: not in src/pwa/shared.ts, which every
 * page loads, so that a page without the stamp card loads no chunk of it. */

/** The message the stamp card posts to the service worker once the server stored a dip: keep the pages with the
 * new count (src/sw/pages.ts refreshAfterDip), so the next visit opens at once. */
export const PAGES_AFTER_DIP = "pages-after-dip";

/** Tells the service worker that a dip was stored (nothing without one: the next visit goes to the network). */
export function tellWorkerDipStored(): void {
  try {
    navigator.serviceWorker?.controller?.postMessage({ type: PAGES_AFTER_DIP });
  } catch {
    // No worker in control: nothing kept to refresh.
  }
}
