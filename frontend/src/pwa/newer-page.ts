/*
 * The service worker showed this page from the phone and the server's page differs (src/sw/pages.ts).
 * Before the member does anything the page simply reloads (the reload asks the server); once they have
 * tapped, typed or scrolled, a bar offers the newer page instead of pulling it from under their finger.
 * Signed out or another member: always reload.
 */

const TOUCHED_EVENTS = ["pointerdown", "keydown", "input", "wheel"] as const;
let touched = false;
for (const type of TOUCHED_EVENTS) {
  window.addEventListener(type, () => (touched = true), { capture: true, passive: true });
}

export const NEWER_PAGE_TEXT = "Er is nieuws op deze pagina.";
export const NEWER_PAGE_BUTTON = "Vernieuwen";

export function showNewerPage({ signedOut }: { signedOut: boolean }, reload: () => void = () => window.location.reload()): void {
  if (signedOut || !touched) {
    reload();
    return;
  }
  if (document.querySelector(".newer-page") !== null) return;
  const bar = document.createElement("div");
  bar.className = "toast info newer-page";
  bar.setAttribute("role", "status");
  const text = document.createElement("span");
  text.className = "toast-text";
  text.textContent = NEWER_PAGE_TEXT;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "btn btn-primary";
  button.textContent = NEWER_PAGE_BUTTON;
  button.addEventListener("click", reload);
  bar.append(text, button);
  document.body.append(bar);
}

/** For tests: as if the member had or had not touched the page yet. */
export function setTouchedForTest(value: boolean): void {
  touched = value;
}
