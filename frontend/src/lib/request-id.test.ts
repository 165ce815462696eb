import { describe, expect, it } from "vitest";

import { newRequestId } from "./request-id";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("newRequestId", () => {
  it("gives a fresh UUID v4 each time", () => {
    const first = newRequestId();
    expect(first).toMatch(UUID_V4);
    expect(newRequestId()).not.toBe(first);
  });

  it("works without crypto.randomUUID (plain http)", () => {
    const original = Object.getOwnPropertyDescriptor(crypto, "randomUUID");
    Object.defineProperty(crypto, "randomUUID", { value: undefined, configurable: true });
    try {
      expect(newRequestId()).toMatch(UUID_V4);
    } finally {
      if (original) Object.defineProperty(crypto, "randomUUID", original);
      else Reflect.deleteProperty(crypto, "randomUUID");
    }
  });
});
