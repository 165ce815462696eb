import "@vitejs/plugin-react/preamble";
import { AdminApp, type AdminTargets } from "../admin/admin-app";
import type { AdminData } from "../admin/types";
import { readJsonScript } from "../lib/data";
import { mountIsland } from "../lib/mount";

/*
 * The /admin page (templates/adminpanel/admin.html):
 *   {{ islands|json_script:"admin-data" }}
 *   <div id="admin-photos-root">…noscript…</div>        in 'Foto collage'
 *   <div id="admin-invitations-root">…noscript…</div>   in 'Uitnodigingsbeheer'
 *   <div id="admin-users-root">…noscript…</div>         in 'Gebruikersbeheer'
 * One React root (#admin-root, appended to <body>, holds the toasts) renders the three
 * sections into their roots with portals.
 */
function target(id: string): Element | null {
  const element = document.getElementById(id);
  element?.querySelectorAll(":scope > noscript").forEach((fallback) => fallback.remove());
  return element;
}

/** A server-rendered part the island takes over (a number, the plain export link): emptied first. */
function takeOver(element: Element | null): Element | null {
  element?.replaceChildren();
  return element;
}

const stat = (name: string) => takeOver(document.querySelector(`[data-admin-stat="${name}"]`));

const targets: AdminTargets = {
  photos: target("admin-photos-root"),
  invitations: target("admin-invitations-root"),
  users: target("admin-users-root"),
  newsletter: takeOver(document.getElementById("admin-newsletter-root")),
  stats: {
    users: stat("users"),
    activeChallenges: stat("activeChallenges"),
    dips: stat("dips"),
    dipsThisWeek: stat("dipsThisWeek"),
    newMembersThisMonth: stat("newMembersThisMonth"),
    subscribers: stat("subscribers"),
  },
};

mountIsland("admin-root", AdminApp, { data: readJsonScript<AdminData>("admin-data"), targets }, { createIfMissing: true });
