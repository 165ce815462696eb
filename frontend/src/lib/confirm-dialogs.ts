import { keepTabInside } from "../ui/focus-trap";

/**
 * The server pages' confirmations (templates/includes/confirm.html). Without JavaScript the button is a link
 * to a confirmation page. With it, the same panel opens as a modal <dialog>: the browser keeps the focus
 * inside and closes it on Escape; 'Annuleren' (a link back, for the page version) closes it too, and the
 * focus returns to the button that opened it.
 */
export function enhanceConfirmDialogs(root: ParentNode = document): void {
  root.querySelectorAll<HTMLAnchorElement>("a[data-confirm-dialog]").forEach((opener) => {
    const dialog = document.getElementById(opener.dataset["confirmDialog"] ?? "");
    if (!(dialog instanceof HTMLDialogElement) || typeof dialog.showModal !== "function") return;
    // Where the focus goes back to, whatever closed the dialog (Escape, Annuleren, the form).
    dialog.addEventListener("close", () => opener.focus());
    dialog.addEventListener("keydown", (event) => keepTabInside(event, dialog));
    dialog.querySelectorAll<HTMLElement>("[data-dialog-cancel]").forEach((cancel) => {
      cancel.addEventListener("click", (event) => {
        event.preventDefault();
        dialog.close();
      });
    });
    opener.setAttribute("aria-haspopup", "dialog");
    opener.addEventListener("click", (event) => {
      event.preventDefault();
      dialog.showModal();
      // The least harmful choice first: Enter on a stray key press cancels rather than deletes.
      dialog.querySelector<HTMLElement>("[data-dialog-cancel]")?.focus();
    });
  });
}
