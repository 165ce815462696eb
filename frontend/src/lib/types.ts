/**
 * Payload types every island shares. `npm run schema` turns them into JSON Schema and
 * tests/test_payload_contract.py checks the server's real answers against them.
 */

import type { CelebrationKind } from "./celebrate";

/**
 * The JSON body of every refused island request (any 4xx/5xx a JSON endpoint answers itself), e.g.
 * `{"error": "Je sessie is verlopen. Log opnieuw in.", "code": "session_expired", "login_url": "/auth"}`.
 */
export interface ErrorBody {
  /** The Dutch message to show, as it is. */
  error: string;
  /**
   * Which refusal it is, in lowercase snake case (a value of a refusal enum on the server, e.g. "card_full").
   * Branch on this, never on `error`: the ones the islands use are in lib/refusal-codes.ts.
   */
  code: string;
  /** The Dutch message per wrong form field (a refused dip's details: 400). */
  fields?: Record<string, string>;
  /** Where to sign in again: only on a 401 (the session is gone). */
  login_url?: string;
}

/** The badge a page's celebration shows: a club challenge's art, name and goal. */
export interface CelebrationPageBadge {
  name: string;
  /** The goal, shown as "{n} plonsen". */
  milestone: number;
  /** May be "": the card then shows the name only. */
  imageUrl: string;
}

/**
 * `celebration-data` on a server-rendered page (the dashboard after a club challenge was completed):
 * the celebration island plays it once.
 */
export interface CelebrationPageData {
  kind: CelebrationKind;
  badge: CelebrationPageBadge | null;
}
