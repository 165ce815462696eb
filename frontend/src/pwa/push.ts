/*
 * Meldingen, in the page:
 * - /account's "Meldingen op dit apparaat aanzetten" (src/islands/notices.tsx, loaded by that section only) asks
 *   the browser's permission from that tap, subscribes with the site's VAPID key and posts the PushSubscription to
 *   /meldingen/abonnement; the page reloads to list the device.
 * - On a member's page, once per opening of the app, a granted subscription is sent again (iOS drops stale
 *   ones silently; a dropped one is made anew): register.ts asks the service worker (src/sw/sw.ts) to do it.
 * On an iPhone outside the installed app, the button stays hidden and the section says why.
 */

import { SUBSCRIBE_URL, deviceLabel, keyBytes } from "./push-shared";

export { SUBSCRIBE_URL, deviceLabel, keyBytes };
export const MESSAGE_DENIED =
  "Je browser staat meldingen voor deze site niet toe. Zet ze aan in de instellingen van je browser en probeer het opnieuw.";
export const MESSAGE_FAILED = "Meldingen aanzetten lukte niet. Probeer het opnieuw.";
export const MESSAGE_BUSY = "Even geduld: meldingen worden aangezet…";

export interface SubscribeResponse {
  id: number;
  device: string;
  message: string;
}

export function isIos(userAgent: string): boolean {
  return /iPhone|iPad|iPod/.test(userAgent);
}

function standalone(): boolean {
  const nav = navigator as Navigator & { standalone?: boolean };
  return nav.standalone === true || window.matchMedia?.("(display-mode: standalone)").matches === true;
}

export function pushSupported(): boolean {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

async function subscription(key: string): Promise<PushSubscription> {
  const registration = await navigator.serviceWorker.ready;
  const existing = await registration.pushManager.getSubscription();
  if (existing !== null) return existing;
  return registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
}

type Result = { ok: true; data: SubscribeResponse } | { ok: false; message: string };

function csrfToken(): string {
  const match = /(?:^|;\s*)csrftoken=([^;]+)/.exec(document.cookie);
  return match?.[1] !== undefined ? decodeURIComponent(match[1]) : "";
}

export async function sendSubscription(sub: PushSubscription): Promise<Result> {
  const response = await fetch(SUBSCRIBE_URL, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
    body: JSON.stringify({ subscription: sub.toJSON(), device: deviceLabel(navigator.userAgent) }),
  });
  const body: unknown = await response.json().catch(() => null);
  if (response.ok && typeof body === "object" && body !== null) return { ok: true, data: body as SubscribeResponse };
  const error = typeof body === "object" && body !== null ? (body as { error?: unknown }).error : undefined;
  return { ok: false, message: typeof error === "string" ? error : MESSAGE_FAILED };
}

async function enable(button: HTMLButtonElement, status: HTMLElement | null): Promise<void> {
  const say = (text: string) => {
    if (status !== null) status.textContent = text;
  };
  const key = button.dataset.pushKey ?? "";
  button.disabled = true;
  say(MESSAGE_BUSY);
  try {
    // Asked from the tap itself: iOS and most browsers grant nothing that was not asked from a tap.
    const permission = await Notification.requestPermission();
    if (permission !== "granted") {
      say(MESSAGE_DENIED);
      return;
    }
    const result = await sendSubscription(await subscription(key));
    if (!result.ok) {
      say(result.message);
      return;
    }
    say(result.data.message);
    window.location.reload();
  } catch {
    say(MESSAGE_FAILED);
  } finally {
    button.disabled = false;
  }
}

/** The /account section's button and notes. */
export function initPush(doc: Document = document): void {
  const supported = pushSupported();
  const button = doc.querySelector<HTMLButtonElement>("[data-push-enable]");
  if (button === null) return;
  const ios = isIos(navigator.userAgent);
  const usable = supported && !(ios && !standalone());
  doc.querySelector<HTMLElement>("[data-push-unsupported]")?.toggleAttribute("hidden", supported || ios);
  doc.querySelector<HTMLElement>("[data-push-ios]")?.toggleAttribute("hidden", !(ios && !standalone()));
  button.hidden = !usable;
  const status = doc.querySelector<HTMLElement>("[data-push-status]");
  button.addEventListener("click", () => void enable(button, status));
}
