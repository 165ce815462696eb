/**
 * The shore list's taps kept on the phone (IndexedDB) until the server has them, like the dips of
 * src/lib/offline-queue.ts: sent one by one in the order they were tapped, each leaving the queue on any answer
 * of the server (the list, or a refusal to show), kept on no connection, when signed out, or in another
 * organiser's session (her taps go with her own). A tap sent twice (a lost answer) changes nothing on the server.
 * The list the server last sent is kept here too, so a reload without signal shows it with the waiting taps.
 * Used by the page and by the service worker's Background Sync (a page closed before the signal came back), so it
 * touches nothing but IndexedDB and fetch.
 */
import { idbOpen, idbRun } from "../lib/idb";
import type { ShoreTap } from "./shore-taps";
import type { ShoreState } from "./types";

const DB_NAME = "koud-waterkant";
const DB_VERSION = 1;
const TAPS = "taps";
const LISTS = "lists";

/** The answer to a sent tap; `status` 0 = no connection. */
export interface TapAnswer {
  status: number;
  body: unknown;
}

function openDb(): Promise<IDBDatabase> {
  return idbOpen(DB_NAME, DB_VERSION, (db) => {
    const taps = db.createObjectStore(TAPS, { keyPath: "seq", autoIncrement: true });
    taps.createIndex("id", "id", { unique: true });
    db.createObjectStore(LISTS, { keyPath: "event_id" });
  });
}

function withStore<T>(name: string, mode: IDBTransactionMode, work: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  return idbRun(openDb, name, mode, work);
}

export async function keepTap(tap: ShoreTap): Promise<void> {
  await withStore(TAPS, "readwrite", (store) => store.add({ ...tap }));
}

/** The Background Sync tag the page asks for and the service worker answers. */
export const SHORE_SYNC_TAG = "koud-waterkant";

/** The waiting taps of one organiser (of one swim, or of every swim), in the order they were tapped. */
export async function waitingTaps(member: string, eventId?: number): Promise<ShoreTap[]> {
  const all = (await withStore(TAPS, "readonly", (store) => store.getAll())) as (ShoreTap & { seq?: number })[];
  return all
    .filter((tap) => (eventId === undefined || tap.eventId === eventId) && tap.member === member)
    .map(({ seq: _seq, ...tap }) => tap);
}

async function forgetTap(id: string): Promise<void> {
  const key = await withStore(TAPS, "readonly", (store) => store.index("id").getKey(id));
  if (key !== undefined) await withStore(TAPS, "readwrite", (store) => store.delete(key));
}

export async function keepList(state: ShoreState): Promise<void> {
  await withStore(LISTS, "readwrite", (store) => store.put(state));
}

/**
 * The list of this swim as the server last sent it, if that was today. Lists of other days leave the phone here:
 * the times are kept for the day of the swim only, on the phone as on the server.
 */
export async function keptList(eventId: number, today = new Date()): Promise<ShoreState | undefined> {
  const all = (await withStore(LISTS, "readonly", (store) => store.getAll())) as ShoreState[];
  const old = all.filter((list) => new Date(list.now).toDateString() !== today.toDateString());
  for (const list of old) await withStore(LISTS, "readwrite", (store) => store.delete(list.event_id));
  return all.find((list) => list.event_id === eventId && !old.includes(list));
}

/**
 * After these answers a tap keeps waiting: no connection, signed out, another organiser's session, or a busy or
 * failing server (a tap sent again changes nothing, so trying later is safe; dropping it would lose it).
 */
export function keepsWaiting(answer: TapAnswer): boolean {
  if (answer.status === 0 || answer.status === 401 || answer.status === 403) return true;
  if (answer.status === 429 || answer.status >= 500) return true;
  const code = typeof answer.body === "object" && answer.body !== null ? (answer.body as { code?: unknown }).code : null;
  return answer.status === 409 && code === OTHER_ORGANISER;
}

/**
 * The header that names the tap's organiser to the server: the dips' X-Koud-Member (lib/offline-queue.ts). Said
 * here again, not imported: a module shared with the stamp card or every page's worker registration would
 * become a chunk of its own, which both would then load.
 */
export const OWNER_HEADER = "X-Koud-Member";

/** The server's code for a tap sent in another organiser's session (apps/attendance/refusals.py). */
export const OTHER_ORGANISER = "shore_other_member";

/** Posts one tap; status 0 when there is no connection. */
export async function sendTap(tap: ShoreTap, csrfToken: string | null = null): Promise<TapAnswer> {
  const headers: Record<string, string> = {
    Accept: "application/json",
    "Content-Type": "application/json",
    "X-Requested-With": "XMLHttpRequest",
    [OWNER_HEADER]: tap.member,
  };
  const token = csrfToken ?? tap.csrfToken;
  if (token !== null) headers["X-CSRFToken"] = token;
  const body = { swimmer: tap.swimmer, kind: tap.kind, tapped_at: tap.tappedAt, first_name: tap.firstName ?? "" };
  try {
    const response = await fetch(tap.endpoint, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
      credentials: "same-origin",
    });
    let parsed: unknown = null;
    try {
      parsed = (await response.json()) as unknown;
    } catch {
      parsed = null;
    }
    return { status: response.status, body: parsed };
  } catch {
    return { status: 0, body: null };
  }
}

let sending: Promise<TapAnswer[]> | null = null;

/**
 * Sends the organiser's waiting taps (of one swim, or all) in order, each once the one before it was answered;
 * stops at the first that has to keep waiting. `onAnswer` hears every answer that ended a tap.
 */
export function sendWaitingTaps(options: {
  member: string;
  eventId?: number;
  /** The page's current token (newer than a tap's after signing in again). */
  csrfToken?: string | null;
  onAnswer?: (tap: ShoreTap, answer: TapAnswer) => void;
}): Promise<TapAnswer[]> {
  sending ??= (async () => {
    const answers: TapAnswer[] = [];
    try {
      for (const tap of await waitingTaps(options.member, options.eventId)) {
        const answer = await sendTap(tap, options.csrfToken ?? null);
        answers.push(answer);
        if (keepsWaiting(answer)) break;
        await forgetTap(tap.id);
        options.onAnswer?.(tap, answer);
      }
    } finally {
      sending = null;
    }
    return answers;
  })();
  return sending;
}
