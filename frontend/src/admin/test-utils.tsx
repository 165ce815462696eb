import { fireEvent, render, type RenderResult } from "@testing-library/react";
import type { ReactElement } from "react";
import { vi } from "vitest";
import { SEARCH_DEBOUNCE_MS } from "./server-list";
import { AdminToastProvider } from "./shared";
import type { AdminEndpoints, AdminUser, Invitation, Photo } from "./types";

export const ENDPOINTS: AdminEndpoints = {
  newsletterExport: "/admin/nieuwsbrief.csv",
  photos: "/admin/api/fotos",
  invitations: "/admin/api/uitnodigingen",
  invitationCreate: "/admin/api/uitnodigingen/nieuw",
  invitationBulk: "/admin/api/uitnodigingen/bulk",
  invitationDelete: "/admin/api/uitnodigingen/{id}/verwijderen",
  invitationResend: "/admin/api/uitnodigingen/{id}/versturen",
  users: "/admin/api/gebruikers",
  userDelete: "/admin/api/gebruikers/{id}/verwijderen",
  userOrganiser: "/admin/api/gebruikers/{id}/organisator",
};

export function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json" },
  });
}

export interface SentRequest {
  url: string;
  method: string;
  body: unknown;
}

export type Route = (request: SentRequest) => Response | Promise<Response>;

/** Stubs `fetch`: `routes["GET /url"]` answers; anything else is a 404 (and fails the test's expectations). */
export function mockApi(routes: Record<string, Route>) {
  const sent: SentRequest[] = [];
  const fetchMock = vi.fn<typeof fetch>(async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const method = init?.method ?? "GET";
    const body: unknown = typeof init?.body === "string" ? JSON.parse(init.body) : undefined;
    const request = { url, method, body };
    sent.push(request);
    // An exact route first; else the route of the path, which then reads the query string itself.
    const route = routes[`${method} ${url}`] ?? routes[`${method} ${url.split("?")[0]}`];
    return route === undefined ? json(404, { error: `geen route ${method} ${url}` }) : route(request);
  });
  vi.stubGlobal("fetch", fetchMock);
  return { fetchMock, sent };
}

/** A promise to resolve by hand, to look at a busy state. */
export function deferred<T>() {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** Types `values` into a search box one after another, quicker than the debounce, then pauses past it. */
export async function typeThenPause(input: HTMLElement, ...values: string[]): Promise<void> {
  vi.useFakeTimers({ shouldAdvanceTime: true });
  try {
    for (const value of values) fireEvent.change(input, { target: { value } });
    await vi.advanceTimersByTimeAsync(SEARCH_DEBOUNCE_MS + 10);
  } finally {
    vi.useRealTimers();
  }
}

export function renderAdmin(ui: ReactElement): RenderResult {
  return render(<AdminToastProvider>{ui}</AdminToastProvider>);
}

export function photo(n: number): Photo {
  return {
    dipId: n,
    userName: n % 5 === 0 ? "Anonieme zwemmer" : `Zwemmer ${n}`,
    dipDateDisplay: `${(n % 28) + 1} januari 2026`,
    photoUrl: `/plons/${n}/foto`,
    thumbnailUrl: `/plons/${n}/foto/klein`,
  };
}

export function invitation(id: number, overrides: Partial<Invitation> = {}): Invitation {
  const code = `CODE${String(id).padStart(4, "0")}`;
  return {
    id,
    code,
    email: null,
    status: "active",
    statusLabel: "Actief",
    createdAtDisplay: "1 januari 2026",
    expiresAtDisplay: "31 januari 2026",
    usedBy: null,
    usedAtDisplay: null,
    link: `http://testserver/auth?invite=${code}`,
    mailStatus: null,
    mailStatusLabel: null,
    ...overrides,
  };
}

export function user(id: number, overrides: Partial<AdminUser> = {}): AdminUser {
  return {
    id,
    email: `lid${id}@example.nl`,
    name: `Lid ${id}`,
    createdAt: `2026-01-${String(id).padStart(2, "0")}T10:00:00+00:00`,
    createdAtDisplay: `${id} januari 2026`,
    newsletter: false,
    dipCount: 0,
    isAdmin: false,
    isOrganiser: false,
    ...overrides,
  };
}
