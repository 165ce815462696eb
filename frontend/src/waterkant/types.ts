/** "Aan de waterkant": the list as the server answers it (apps/attendance/shore_state.py). */

export interface ShoreSwimmer {
  /** `lid-<id>`, `gast-<id>` or `nieuw-<uuid>` (a guest added on the spot). */
  ref: string;
  name: string;
  guest: boolean;
  /** ISO 8601: the latest "in het water" and the latest "eruit"; the later of the two says where she is. */
  went_in_at: string | null;
  came_out_at: string | null;
}

export interface ShoreState {
  event_id: number;
  /** Taps are taken: the day of the swim, not afgelast. */
  open: boolean;
  /** "Iedereen is eruit" said at this moment (a later tap opens the list again). */
  closed_at: string | null;
  /** The server's clock when it answered: the minutes on the phone count from it. */
  now: string;
  /** After this many minutes in the water a name stands out (the club's setting). */
  notice_minutes: number;
  swimmers: ShoreSwimmer[];
}

export interface WaterkantUrls {
  state: string;
  tap: string;
  member: string;
  close: string;
  veilig: string;
}

export interface WaterkantProps {
  state: ShoreState;
  urls: WaterkantUrls;
  title: string;
  /** The organiser's mark (X-Koud-Member): a tap is only ever sent with her session. */
  member: string;
}
