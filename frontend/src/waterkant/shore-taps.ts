/**
 * The rules of the shore list, the same as the server's (apps/attendance/shore.py), so that the phone shows its
 * own waiting taps on top of the list the server last sent: each swimmer keeps the latest "in" and the latest
 * "eruit", and the later of the two says where she is. Taps commute and a tap applied twice changes nothing, so
 * a waiting tap the server already has shows the same list.
 */
import type { ShoreState, ShoreSwimmer } from "./types";

export type TapKind = "in" | "uit" | "gast";

export interface ShoreTap {
  /** The tap's own id (the queue's key). */
  id: string;
  eventId: number;
  /** The organiser who tapped it (X-Koud-Member). */
  member: string;
  swimmer: string;
  kind: TapKind;
  /** ISO 8601 moment of the tap. */
  tappedAt: string;
  /** A guest added on the spot: her first name. */
  firstName?: string;
  /** Where it goes (the swim's tap address), and the page's CSRF token: the service worker reads no cookies. */
  endpoint: string;
  csrfToken: string | null;
}

const time = (value: string | null): number => (value === null ? Number.NaN : Date.parse(value));

export function inWater(swimmer: ShoreSwimmer): boolean {
  if (swimmer.went_in_at === null) return false;
  return swimmer.came_out_at === null || time(swimmer.came_out_at) < time(swimmer.went_in_at);
}

function later(current: string | null, moment: string): boolean {
  return current === null || time(moment) > time(current);
}

export function applyTap(state: ShoreState, tap: ShoreTap): ShoreState {
  if (tap.eventId !== state.event_id) return state;
  const swimmers = state.swimmers.slice();
  let closedAt = state.closed_at;
  const index = swimmers.findIndex((swimmer) => swimmer.ref === tap.swimmer);
  if (tap.kind === "gast") {
    if (index >= 0) return state;
    swimmers.push({ ref: tap.swimmer, name: tap.firstName ?? "", guest: true, went_in_at: null, came_out_at: null });
    return { ...state, swimmers: sortByName(swimmers) };
  }
  const found = swimmers[index];
  if (found === undefined) return state;
  const next = { ...found };
  if (tap.kind === "uit") {
    if (later(next.came_out_at, tap.tappedAt)) next.came_out_at = tap.tappedAt;
  } else {
    if (later(next.went_in_at, tap.tappedAt)) next.went_in_at = tap.tappedAt;
    if (closedAt !== null && time(tap.tappedAt) > time(closedAt)) closedAt = null;
    else if (closedAt !== null && later(next.came_out_at, closedAt)) next.came_out_at = closedAt;
  }
  swimmers[index] = next;
  return { ...state, swimmers, closed_at: closedAt };
}

export function applyTaps(state: ShoreState, taps: readonly ShoreTap[]): ShoreState {
  return taps.reduce(applyTap, state);
}

export function sortByName(swimmers: ShoreSwimmer[]): ShoreSwimmer[] {
  return swimmers.sort((a, b) => a.name.localeCompare(b.name, "nl", { sensitivity: "base" }) || a.ref.localeCompare(b.ref));
}

export interface ShoreSummary {
  inWater: number;
  /** Who has been in longest, and since when (ms since the epoch). */
  longest: { name: string; since: number } | null;
  /** Anyone went in at all (then "Iedereen is eruit" can be said). */
  anyoneWentIn: boolean;
}

export function summary(state: ShoreState): ShoreSummary {
  let count = 0;
  let longest: ShoreSummary["longest"] = null;
  for (const swimmer of state.swimmers) {
    if (!inWater(swimmer)) continue;
    count += 1;
    const since = time(swimmer.went_in_at);
    if (longest === null || since < longest.since) longest = { name: swimmer.name, since };
  }
  return { inWater: count, longest, anyoneWentIn: state.swimmers.some((swimmer) => swimmer.went_in_at !== null) };
}

/** Whole minutes between `since` and `now` (ms), never below 0. */
export function minutesSince(since: number, now: number): number {
  return Math.max(0, Math.floor((now - since) / 60_000));
}
