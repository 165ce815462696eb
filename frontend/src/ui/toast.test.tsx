import { act, fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { Feedback, FeedbackProvider, useSay, type Say } from "./feedback";
import { FeedbackToast } from "./toast";

let say: Say = () => undefined;

function Speaker() {
  say = useSay();
  return null;
}

function Harness({ look = "toast" }: { look?: "line" | "toast" }) {
  return (
    <FeedbackProvider replacesPageFlash={false}>
      <Speaker />
      {look === "line" ? <Feedback /> : <FeedbackToast />}
    </FeedbackProvider>
  );
}

describe("an island's feedback as a toast", () => {
  it("renders inside a polite status live region", () => {
    render(<Harness />);
    const region = screen.getByRole("status");
    expect(region.getAttribute("aria-live")).toBe("polite");
    act(() => say("Plons toegevoegd!", "success"));
    expect(region.textContent).toContain("Plons toegevoegd!");
    expect(region.querySelector(".toast.success")).not.toBeNull();
  });

  it("shows one message at a time, for its own duration: a new one replaces the old", () => {
    vi.useFakeTimers();
    render(<Harness />);
    act(() => say("Badge verdiend: Kikker!", "success", 5000));
    act(() => vi.advanceTimersByTime(4999));
    expect(screen.queryByText("Badge verdiend: Kikker!")).not.toBeNull();
    act(() => vi.advanceTimersByTime(1));
    expect(screen.queryByText("Badge verdiend: Kikker!")).toBeNull();

    act(() => {
      say("Link gekopieerd!");
      say("Waterdieren Stempelkaart voltooid! Alle badges verzameld!", "success", 10000);
    });
    expect(screen.queryByText("Link gekopieerd!")).toBeNull();
    act(() => vi.advanceTimersByTime(9999));
    expect(screen.queryByText("Waterdieren Stempelkaart voltooid! Alle badges verzameld!")).not.toBeNull();
    act(() => vi.advanceTimersByTime(1));
    expect(screen.queryByText("Waterdieren Stempelkaart voltooid! Alle badges verzameld!")).toBeNull();
    vi.useRealTimers();
  });

  it("can be dismissed early", () => {
    render(<Harness />);
    act(() => say("Link gekopieerd"));
    fireEvent.click(screen.getByRole("button", { name: "Sluiten" }));
    expect(screen.queryByText("Link gekopieerd")).toBeNull();
  });
});

describe("an island's feedback as a line", () => {
  it("shows the message as the server's messages look, and keeps the page's flash unless told", () => {
    document.body.innerHTML = '<div class="messages"><p class="message success">Welkom!</p></div>';
    render(<Harness look="line" />);
    act(() => say("Kon niet opslaan", "error"));
    expect(screen.getByText("Kon niet opslaan").className).toBe("message error");
    expect(document.querySelector(".messages > .message")?.textContent).toBe("Welkom!");
  });
});
