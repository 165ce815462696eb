/**
 * Dips tapped without signal wait here (IndexedDB) until the connection is back, and so do photos of dips
 * the server has (sent after the dip, `dipId`) whose upload failed. Used by the stamp
 * card and by the service worker's Background Sync, so it touches nothing but IndexedDB and fetch.
 *
 * A queued tap keeps its request id: the server stores one dip per id, so sending the same tap twice
 * (the page and the worker at once, or a lost answer) never adds two dips. The server stays the judge:
 * every answer it gives, yes or no, ends the tap's wait.
 *
 * A queued tap belongs to the member who tapped it (`member`: the opaque id the server marks that
 * member's pages with, X-Koud-Member) and is only ever sent with that member's session. On a shared
 * phone, A's unsent dip is not sent with B's session (the server would refuse it for B and the tap would
 * be gone): it stays on the phone, out of B's sight, and goes when A signs in here again. We keep it
 * rather than drop it at sign-out because it is a real dip of A's: a member who signed out with a dip
 * still waiting (no signal at the water) expects it to count, and the server still takes a tap up to
 * 72 hours late; the card shows it under "Nog te versturen" until then.
 *
 * The phone's idea of who is signed in can be out of date (A's session ended elsewhere, then B signed in
 * before the worker saw a page of B's), so the server is the judge of that too: a tap goes with its
 * owner's mark (X-Koud-Member), the server refuses it when the session is someone else's
 * (`other_member`), and that refusal keeps the tap, like a 401.
 */

import { REFUSAL } from "./refusal-codes";
import { idbOpen, idbRun } from "./idb";

const DB_NAME = "koud-offline";
const DB_VERSION = 1;
const STORE = "taps";
/** The Background Sync tag the stamp card asks for and the service worker answers. */
export const SYNC_TAG = "koud-dips";

export interface QueuedTap {
  /** The dip's request id (UUID), sent as `request_id`. */
  requestId: string;
  /** ISO 8601 moment of the tap (with offset), sent as `tapped_at`. */
  tappedAt: string;
  /** The card it was tapped on: the server refuses it for any other card. */
  userChallengeId: number;
  /** The member who tapped it (X-Koud-Member); `undefined` only for taps queued before taps had owners. */
  member?: string;
  endpoint: string;
  /** The page's CSRF token: a worker cannot read cookies. */
  csrfToken: string | null;
  photo: Blob | null;
  photoName: string | null;
  /** Extra form fields of the dip (its details), sent as they are. */
  details: Record<string, string>;
  /**
   * Set for a photo sent after its dip (the server has the dip; `endpoint` is the dip's address): only the
   * photo and its share choice (`details.share_photo`) go, and the server keeps a photo the dip has already.
   */
  dipId?: number;
}

interface StoredTap extends QueuedTap {
  /** Auto-increment key: the order of the taps. */
  seq?: number;
}

/**
 * A queued tap may carry a photo that the live send gave up on (a weak line): give it much longer than
 * the stamp card's own wait, but never forever, so one hung request can't hold up the queue.
 */
export const QUEUED_SEND_TIMEOUT_MS = 120_000;

/** What the server answered for a sent tap; `status` 0 = no connection (the tap keeps waiting). */
export interface SendResult {
  tap: QueuedTap;
  status: number;
  body: unknown;
}

function openDb(): Promise<IDBDatabase> {
  return idbOpen(DB_NAME, DB_VERSION, (db) => {
    const store = db.createObjectStore(STORE, { keyPath: "seq", autoIncrement: true });
    store.createIndex("requestId", "requestId", { unique: true });
  });
}

function withStore<T>(mode: IDBTransactionMode, work: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  return idbRun(openDb, STORE, mode, work);
}

/** Stores a tap at the end of the queue (a second store of the same request id is ignored). */
export async function enqueueTap(tap: QueuedTap): Promise<void> {
  const existing = await withStore("readonly", (store) => store.index("requestId").getKey(tap.requestId));
  if (existing !== undefined) return;
  await withStore("readwrite", (store) => store.add({ ...tap }));
}

/** The waiting taps in tap order; only those of one card when `userChallengeId` is given. */
export async function queuedTaps(userChallengeId?: number): Promise<QueuedTap[]> {
  const all = (await withStore("readonly", (store) => store.getAll())) as StoredTap[];
  return all
    .filter((tap) => userChallengeId === undefined || tap.userChallengeId === userChallengeId)
    .map(({ seq: _seq, ...tap }) => tap);
}

/** Whether `member`'s session may send this tap (a tap from before owners goes with any, as it did). */
export function belongsTo(tap: QueuedTap, member: string): boolean {
  return tap.member === undefined || tap.member === member;
}

async function removeTap(requestId: string): Promise<void> {
  const key = await withStore("readonly", (store) => store.index("requestId").getKey(requestId));
  if (key !== undefined) await withStore("readwrite", (store) => store.delete(key));
}

/** The multipart body the dip endpoint expects. */
export function tapForm(tap: QueuedTap): FormData {
  const form = new FormData();
  if (tap.dipId === undefined) {
    form.append("request_id", tap.requestId);
    form.append("tapped_at", tap.tappedAt);
    form.append("user_challenge_id", String(tap.userChallengeId));
  } else {
    form.append("photo_after_tap", "1");
  }
  for (const [name, value] of Object.entries(tap.details)) form.append(name, value);
  if (tap.photo !== null) form.append("photo", tap.photo, tap.photoName ?? "foto.jpg");
  return form;
}

async function sendTap(tap: QueuedTap, csrfToken: string | null): Promise<SendResult> {
  const headers: Record<string, string> = { Accept: "application/json", "X-Requested-With": "XMLHttpRequest" };
  const token = csrfToken ?? tap.csrfToken;
  if (token !== null) headers["X-CSRFToken"] = token;
  if (tap.member !== undefined) headers[TAP_OWNER_HEADER] = tap.member;
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), QUEUED_SEND_TIMEOUT_MS);
  try {
    let response: Response;
    try {
      response = await fetch(tap.endpoint, {
        method: "POST",
        body: tapForm(tap),
        headers,
        credentials: "same-origin",
        signal: timeout.signal,
      });
    } catch {
      return { tap, status: 0, body: null };
    }
    let body: unknown = null;
    try {
      body = (await response.json()) as unknown;
    } catch {
      if (timeout.signal.aborted) return { tap, status: 0, body: null };
      body = null;
    }
    return { tap, status: response.status, body };
  } finally {
    clearTimeout(timer);
  }
}

/** The header that names the tap's member to the server (config/middleware.py marks pages with it too). */
export const TAP_OWNER_HEADER = "X-Koud-Member";

/** A photo for a dip the server has is tried again after a busy or failing server (the dip itself counts). */
function photoLater(result: SendResult): boolean {
  return result.tap.dipId !== undefined && (result.status === 429 || result.status >= 500);
}

/** The answers after which a tap keeps waiting: no connection, signed out, or another member's session. */
export function keepsWaiting(result: SendResult): boolean {
  if (result.status === 0 || result.status === 401 || result.status === 403 || photoLater(result)) return true;
  const code = typeof result.body === "object" && result.body !== null ? (result.body as { code?: unknown }).code : null;
  return result.status === 409 && code === REFUSAL.otherMember;
}

/** Only one flush at a time per page or worker, so taps go out one by one, in order. */
let flushing: Promise<SendResult[]> | null = null;

/**
 * Sends `member`'s waiting taps in order (another member's taps stay untouched). A tap leaves the
 * queue on any answer of the server (a dip, or a refusal such as a completed card); on no connection
 * the flush stops and the rest keeps waiting. A 401/403 (signed out) or the server's `other_member` (the
 * session is someone else's) stops it too: the tap waits for its member to sign in again.
 */
export function flushQueue(
  options: {
    /** The member whose session sends (X-Koud-Member); only their taps go. */
    member: string;
    userChallengeId?: number;
    /** The page's current token (a newer one than the tap's after signing in again). */
    csrfToken?: string | null;
    onResult?: (result: SendResult) => void;
  },
): Promise<SendResult[]> {
  flushing ??= (async () => {
    const results: SendResult[] = [];
    try {
      const mine = (await queuedTaps(options.userChallengeId)).filter((tap) => belongsTo(tap, options.member));
      for (const tap of mine) {
        const result = await sendTap(tap, options.csrfToken ?? null);
        if (keepsWaiting(result)) {
          results.push(result);
          // Only that photo waits for the server: the taps after it go.
          if (photoLater(result)) continue;
          break;
        }
        await removeTap(tap.requestId);
        results.push(result);
        options.onResult?.(result);
      }
    } finally {
      flushing = null;
    }
    return results;
  })();
  return flushing;
}
