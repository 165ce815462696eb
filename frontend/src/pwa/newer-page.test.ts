import { afterEach, describe, expect, it, vi } from "vitest";
import { NEWER_PAGE_BUTTON, NEWER_PAGE_TEXT, setTouchedForTest, showNewerPage } from "./newer-page";

describe("a page the service worker showed from the phone, and the server's is newer", () => {
  afterEach(() => {
    document.body.innerHTML = "";
    setTouchedForTest(false);
  });

  it("reloads at once while the member has not touched the page", () => {
    const reload = vi.fn();
    showNewerPage({ signedOut: false }, reload);
    expect(reload).toHaveBeenCalledOnce();
    expect(document.querySelector(".newer-page")).toBeNull();
  });

  it("offers the newer page once the member tapped, instead of pulling it from under their finger", () => {
    window.dispatchEvent(new Event("pointerdown"));
    const reload = vi.fn();
    showNewerPage({ signedOut: false }, reload);
    showNewerPage({ signedOut: false }, reload);
    expect(reload).not.toHaveBeenCalled();
    const bars = document.querySelectorAll(".newer-page");
    expect(bars).toHaveLength(1);
    expect(bars[0]!.getAttribute("role")).toBe("status");
    expect(bars[0]!.textContent).toContain(NEWER_PAGE_TEXT);
    const button = [...bars[0]!.querySelectorAll("button")].find((b) => b.textContent === NEWER_PAGE_BUTTON);
    button!.click();
    expect(reload).toHaveBeenCalledOnce();
  });

  it("always reloads when the session is no longer the member's whose page it showed", () => {
    setTouchedForTest(true);
    const reload = vi.fn();
    showNewerPage({ signedOut: true }, reload);
    expect(reload).toHaveBeenCalledOnce();
    expect(document.querySelector(".newer-page")).toBeNull();
  });
});
