import { act, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { stubReducedMotion } from "../test/media";
import { Celebration } from "./celebration";

function drops(container: HTMLElement) {
  return container.querySelectorAll(".kw-celebration__drop");
}

function sparkles(container: HTMLElement) {
  return container.querySelectorAll(".kw-celebration__sparkle");
}

describe("Celebration", () => {
  it("renders 30 decorative drops and no banner for a milestone", () => {
    const { container } = render(<Celebration kind="milestone" />);
    expect(drops(container)).toHaveLength(30);
    expect(sparkles(container)).toHaveLength(0);
    expect(screen.queryByText("Gefeliciteerd!")).toBeNull();
    for (const drop of drops(container)) {
      expect(drop.getAttribute("aria-hidden")).toBe("true");
      const style = (drop as HTMLElement).style;
      expect(style.left).toMatch(/^\d+(\.\d+)?%$/);
      expect(style.animationDelay).toMatch(/s$/);
      expect(style.animationDuration).toMatch(/s$/);
    }
  });

  it("renders 50 drops, sparkles and the banner for a completion", () => {
    const { container } = render(<Celebration kind="completion" />);
    expect(drops(container)).toHaveLength(50);
    expect(sparkles(container).length).toBeGreaterThan(0);
    for (const sparkle of sparkles(container)) {
      expect(sparkle.getAttribute("aria-hidden")).toBe("true");
    }
    expect(screen.getByText("Gefeliciteerd!")).toBeTruthy();
  });

  it("is an overlay that never takes pointer events (class carries pointer-events: none)", () => {
    render(<Celebration kind="milestone" />);
    expect(screen.getByTestId("celebration").classList.contains("kw-celebration")).toBe(true);
  });

  it("calls onDone once after 3000 ms", () => {
    vi.useFakeTimers();
    const onDone = vi.fn();
    render(<Celebration kind="milestone" onDone={onDone} />);
    act(() => vi.advanceTimersByTime(2999));
    expect(onDone).not.toHaveBeenCalled();
    act(() => vi.advanceTimersByTime(1));
    expect(onDone).toHaveBeenCalledTimes(1);
    act(() => vi.advanceTimersByTime(10000));
    expect(onDone).toHaveBeenCalledTimes(1);
  });

  it("does not restart the timer when the parent passes a new onDone", () => {
    vi.useFakeTimers();
    const first = vi.fn();
    const second = vi.fn();
    const { rerender } = render(<Celebration kind="milestone" onDone={first} />);
    act(() => vi.advanceTimersByTime(2000));
    rerender(<Celebration kind="milestone" onDone={second} />);
    act(() => vi.advanceTimersByTime(1000));
    expect(first).not.toHaveBeenCalled();
    expect(second).toHaveBeenCalledTimes(1);
  });

  it("with reduced motion renders no drops, a static banner, and still ends after 3 s", () => {
    stubReducedMotion(true);
    vi.useFakeTimers();
    const onDone = vi.fn();
    const { container } = render(<Celebration kind="completion" onDone={onDone} />);
    expect(drops(container)).toHaveLength(0);
    expect(sparkles(container)).toHaveLength(0);
    expect(screen.getByText("Gefeliciteerd!")).toBeTruthy();
    act(() => vi.advanceTimersByTime(3000));
    expect(onDone).toHaveBeenCalledTimes(1);
  });

  it("with reduced motion shows a static message for a milestone", () => {
    stubReducedMotion(true);
    const { container } = render(<Celebration kind="milestone" />);
    expect(drops(container)).toHaveLength(0);
    expect(screen.getByText("Mijlpaal bereikt!")).toBeTruthy();
  });
});
