import { afterEach, describe, expect, it, vi } from "vitest";
import { enhanceConfirmDialogs } from "./confirm-dialogs";

function page() {
  document.body.innerHTML = `
    <a href="/challenge/stoppen" data-confirm-dialog="stop">Challenge Stoppen</a>
    <dialog id="stop"><h2>Challenge stoppen?</h2>
      <form method="post" action="/challenge/stoppen">
        <a href="/challenge" data-dialog-cancel>Annuleren</a><button type="submit">Ja, stop en verwijder</button>
      </form>
    </dialog>`;
  const dialog = document.getElementById("stop") as HTMLDialogElement;
  // jsdom has no modal dialogs: a minimal stand-in with the browser's open/close/close-event behaviour.
  dialog.showModal = vi.fn(() => dialog.setAttribute("open", ""));
  dialog.close = vi.fn(() => {
    dialog.removeAttribute("open");
    dialog.dispatchEvent(new Event("close"));
  });
  enhanceConfirmDialogs();
  const opener = document.querySelector("a[data-confirm-dialog]") as HTMLAnchorElement;
  const cancel = document.querySelector("[data-dialog-cancel]") as HTMLAnchorElement;
  return { dialog, opener, cancel };
}

afterEach(() => {
  document.body.innerHTML = "";
});

describe("enhanceConfirmDialogs", () => {
  it("opens the confirmation as a modal dialog instead of following the link, focus on Annuleren", () => {
    const { dialog, opener, cancel } = page();
    const click = new MouseEvent("click", { bubbles: true, cancelable: true });
    opener.dispatchEvent(click);
    expect(click.defaultPrevented).toBe(true);
    expect(dialog.showModal).toHaveBeenCalledOnce();
    expect(document.activeElement).toBe(cancel);
    expect(opener.getAttribute("aria-haspopup")).toBe("dialog");
  });

  it("keeps Tab and Shift+Tab inside the dialog", () => {
    const { dialog, opener, cancel } = page();
    opener.click();
    const confirm = dialog.querySelector("button") as HTMLButtonElement;
    confirm.focus();
    const tab = new KeyboardEvent("keydown", { key: "Tab", bubbles: true, cancelable: true });
    confirm.dispatchEvent(tab);
    expect(tab.defaultPrevented).toBe(true);
    expect(document.activeElement).toBe(cancel);
    const back = new KeyboardEvent("keydown", { key: "Tab", shiftKey: true, bubbles: true, cancelable: true });
    cancel.dispatchEvent(back);
    expect(document.activeElement).toBe(confirm);
  });

  it("'Annuleren' closes it without navigating, and the focus returns to the button", () => {
    const { dialog, opener, cancel } = page();
    opener.click();
    const click = new MouseEvent("click", { bubbles: true, cancelable: true });
    cancel.dispatchEvent(click);
    expect(click.defaultPrevented).toBe(true);
    expect(dialog.open).toBe(false);
    expect(document.activeElement).toBe(opener);
  });
});
