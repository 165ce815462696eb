import { act, fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { TOAST_DURATION_MS, ToastRegion, useFlashMessage, useToasts, type ShowToastOptions } from "./toast";

let show: (text: string, options?: ShowToastOptions) => number = () => 0;

function Harness() {
  const { toasts, showToast, dismissToast } = useToasts();
  show = showToast;
  return <ToastRegion toasts={toasts} onDismiss={dismissToast} />;
}

describe("toasts", () => {
  it("renders inside a polite status live region", () => {
    render(<Harness />);
    const region = screen.getByRole("status");
    expect(region.getAttribute("aria-live")).toBe("polite");
    act(() => {
      show("Plons toegevoegd!", { kind: "success" });
    });
    expect(region.textContent).toContain("Plons toegevoegd!");
  });

  it("shows one toast at a time, for its own duration: a new one replaces the old", () => {
    vi.useFakeTimers();
    render(<Harness />);
    act(() => show("Badge verdiend: Kikker!", { durationMs: TOAST_DURATION_MS.badge }));
    act(() => vi.advanceTimersByTime(4999));
    expect(screen.queryByText("Badge verdiend: Kikker!")).not.toBeNull();
    act(() => vi.advanceTimersByTime(1));
    expect(screen.queryByText("Badge verdiend: Kikker!")).toBeNull();

    act(() => {
      show("Link gekopieerd!");
      show("Waterdieren Stempelkaart voltooid! Alle badges verzameld!", {
        durationMs: TOAST_DURATION_MS.completion,
      });
    });
    expect(screen.queryByText("Link gekopieerd!")).toBeNull();
    expect(
      screen.queryByText("Waterdieren Stempelkaart voltooid! Alle badges verzameld!"),
    ).not.toBeNull();
    act(() => vi.advanceTimersByTime(9999));
    expect(
      screen.queryByText("Waterdieren Stempelkaart voltooid! Alle badges verzameld!"),
    ).not.toBeNull();
    act(() => vi.advanceTimersByTime(1));
    expect(
      screen.queryByText("Waterdieren Stempelkaart voltooid! Alle badges verzameld!"),
    ).toBeNull();
  });

  it("can be dismissed early", () => {
    render(<Harness />);
    act(() => {
      show("Link gekopieerd");
    });
    fireEvent.click(screen.getByRole("button", { name: "Sluiten" }));
    expect(screen.queryByText("Link gekopieerd")).toBeNull();
  });
});

describe("useFlashMessage", () => {
  function Flash() {
    const [message, flash] = useFlashMessage();
    return (
      <>
        <button type="button" onClick={() => flash("Opgeslagen", 2000)}>
          go
        </button>
        <p role="status">{message}</p>
      </>
    );
  }

  it("shows the message for the given time", () => {
    vi.useFakeTimers();
    render(<Flash />);
    fireEvent.click(screen.getByText("go"));
    expect(screen.getByRole("status").textContent).toBe("Opgeslagen");
    act(() => vi.advanceTimersByTime(2000));
    expect(screen.getByRole("status").textContent).toBe("");
  });
});
