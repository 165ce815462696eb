import { describe, expect, it } from "vitest";
import type { ApiFailure } from "../lib/api";
import { testDip } from "../test/stampcard-data";
import { tapOutcome } from "./register-dip";
import type { RegisterDipResponse } from "./types";

const LIMIT = 15 * 1024 * 1024;
const HERE = { canWait: true, online: true, photoMaxBytes: LIMIT };

function refused(status: number, body: ApiFailure["body"], loginUrl: string | null = null): ApiFailure {
  return { ok: false, status, message: body?.error ?? "Er ging iets mis. Probeer opnieuw in te loggen.", loginUrl, body };
}

describe("where a tap ends up", () => {
  it("is stored when the server stored it", () => {
    const answer = { dip: testDip(1), dipCount: 1 } as RegisterDipResponse;
    expect(tapOutcome({ ok: true, status: 201, data: answer }, HERE)).toEqual({ kind: "stored", answer });
  });

  it("waits on the phone without an answer, or is unreachable on a phone without a queue", () => {
    const lost = refused(0, null);
    expect(tapOutcome(lost, HERE)).toMatchObject({ kind: "waits", message: expect.stringMatching(/^Versturen lukte niet/) });
    expect(tapOutcome(lost, { ...HERE, online: false })).toMatchObject({ message: expect.stringMatching(/^Geen verbinding/) });
    expect(tapOutcome(lost, { ...HERE, canWait: false })).toEqual({ kind: "unreachable" });
  });

  it("is signed out on a 401, with or without a login URL", () => {
    const expired = refused(401, { error: "Je sessie is verlopen. Log opnieuw in.", code: "session_expired", login_url: "/auth" }, "/auth");
    expect(tapOutcome(expired, HERE)).toEqual({ kind: "signedOut", failure: expired });
    expect(tapOutcome(refused(401, null), HERE).kind).toBe("signedOut");
  });

  it("is refused with the server's message and fields, or the size message for a proxy's HTML 413", () => {
    const fields = { spot: "De plek mag hoogstens 80 tekens lang zijn." };
    expect(tapOutcome(refused(400, { error: "Controleer de details.", code: "conditions_invalid", fields }), HERE)).toEqual({
      kind: "refused",
      message: "Controleer de details.",
      fields,
    });
    expect(tapOutcome(refused(413, null), HERE)).toMatchObject({
      kind: "refused",
      message: "Deze foto is te groot. Het maximum is 15 MB.",
      fields: {},
    });
  });
});
