import { act } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";

describe("celebration island entry", () => {
  it("creates #celebration-root when missing and plays on koud:celebrate", async () => {
    vi.useFakeTimers();
    await act(async () => {
      await import("./celebration");
    });
    const root = document.getElementById("celebration-root");
    expect(root).not.toBeNull();
    expect(root?.childElementCount).toBe(0);

    act(() => {
      window.dispatchEvent(new CustomEvent("koud:celebrate", { detail: { kind: "milestone" } }));
    });
    expect(root?.querySelectorAll(".kw-celebration__drop")).toHaveLength(30);

    act(() => vi.advanceTimersByTime(3000));
    expect(root?.childElementCount).toBe(0);
  });
});
