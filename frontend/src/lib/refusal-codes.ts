/**
 * The refusal codes the islands branch on (`ErrorBody.code`), never on the Dutch text. Each is a value of a
 * refusal enum on the server (apps/<app>/refusals.py); tests/core/test_refusal_codes.py checks that they are.
 */
export const REFUSAL = {
  /** Undo refused: the ten minutes are over, or the dip is no longer the latest. */
  undoTooLate: "undo_too_late",
  /** A queued tap sent in another member's session: it stays on the phone for its own member. */
  otherMember: "other_member",
  /** The dip is gone (undone meanwhile) or is not the member's. */
  dipUnknown: "dip_unknown",
} as const;
