import { act, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { unmountIsland } from "../lib/mount";

describe("celebration island entry", () => {
  afterEach(() => {
    act(() => unmountIsland("celebration-root"));
    vi.useRealTimers();
  });

  it("reads #celebration-data, shows the completion with the badge and goes after 3 s", async () => {
    vi.useFakeTimers();
    const script = document.createElement("script");
    script.type = "application/json";
    script.id = "celebration-data";
    script.textContent = JSON.stringify({
      kind: "completion",
      badge: { name: "Dip a Day December", milestone: 31, imageUrl: "" },
    });
    document.body.append(script);

    await act(async () => {
      await import("./celebration");
    });

    expect(screen.getByTestId("celebration").classList.contains("kw-celebration--completion")).toBe(true);
    expect(screen.getByText("Gefeliciteerd!")).toBeTruthy();
    expect(screen.getByText("Dip a Day December")).toBeTruthy();
    act(() => {
      vi.advanceTimersByTime(3100);
    });
    expect(screen.queryByTestId("celebration")).toBeNull();
  });
});
