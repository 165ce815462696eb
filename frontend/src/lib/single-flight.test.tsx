import { act, renderHook } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";

import { useSingleFlight } from "./single-flight";

describe("useSingleFlight", () => {
  it("sends once when called twice in the same tick, and is busy meanwhile", async () => {
    let finish: (value: string) => void = () => undefined;
    const send = vi.fn(() => new Promise<string>((resolve) => (finish = resolve)));
    const { result } = renderHook(() => useSingleFlight());
    const [, run] = result.current;

    let first: Promise<string | undefined> = Promise.resolve(undefined);
    let second: Promise<string | undefined> = Promise.resolve(undefined);
    act(() => {
      first = run(send);
      second = run(send);
    });
    expect(send).toHaveBeenCalledTimes(1);
    expect(result.current[0]).toBe(true);
    await expect(second).resolves.toBeUndefined();

    await act(async () => finish("klaar"));
    await expect(first).resolves.toBe("klaar");
    expect(result.current[0]).toBe(false);
  });

  it("is free again after a failed request", async () => {
    const { result } = renderHook(() => useSingleFlight());
    await act(async () => {
      await expect(result.current[1](() => Promise.reject(new Error("weg")))).rejects.toThrow("weg");
    });
    expect(result.current[0]).toBe(false);
    const again = vi.fn(() => Promise.resolve(1));
    await act(async () => {
      await result.current[1](again);
    });
    expect(again).toHaveBeenCalledTimes(1);
  });
});
