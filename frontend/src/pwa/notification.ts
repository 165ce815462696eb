/**
 * What the service worker shows for a push (src/sw/sw.ts), kept apart so it can be tested in a page.
 * Every push shows a notification (iOS ends a subscription whose pushes show none), with a Dutch text even
 * when the payload is missing or broken.
 */

export const DEFAULT_TITLE = "Koud water challenge";
export const DEFAULT_BODY = "Er is nieuws voor je in de app.";
export const DEFAULT_URL = "/dashboard";
export const ICON = "/static/icons/icon-192.png";

export interface ShownNotification {
  title: string;
  options: NotificationOptions & { data: { url: string } };
}

/** A same-origin path to open on a tap; anything else (another site, javascript:) opens the dashboard. */
export function safePath(url: unknown, origin: string): string {
  if (typeof url !== "string" || url === "") return DEFAULT_URL;
  try {
    const parsed = new URL(url, origin);
    if (parsed.origin !== origin) return DEFAULT_URL;
    return parsed.pathname + parsed.search + parsed.hash;
  } catch {
    return DEFAULT_URL;
  }
}

function text(value: unknown, fallback: string, max: number): string {
  return typeof value === "string" && value.trim() !== "" ? value.trim().slice(0, max) : fallback;
}

/** The notification for a push payload (the server's JSON: title, body, url, tag). */
export function notificationFor(payload: string | null, origin: string): ShownNotification {
  let data: Record<string, unknown> = {};
  if (payload !== null) {
    try {
      const parsed: unknown = JSON.parse(payload);
      if (typeof parsed === "object" && parsed !== null) data = parsed as Record<string, unknown>;
    } catch {
      data = {};
    }
  }
  const options: ShownNotification["options"] = {
    body: text(data.body, DEFAULT_BODY, 500),
    icon: ICON,
    badge: ICON,
    lang: "nl",
    data: { url: safePath(data.url, origin) },
  };
  if (typeof data.tag === "string" && data.tag !== "") options.tag = data.tag;
  return { title: text(data.title, DEFAULT_TITLE, 200), options };
}
