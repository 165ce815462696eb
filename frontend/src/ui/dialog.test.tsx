import { fireEvent, render, screen } from "@testing-library/react";
import { useState } from "react";
import { describe, expect, it, vi } from "vitest";
import { ConfirmDialog } from "./dialog";

function Harness({ onConfirm }: { onConfirm: () => void }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Challenge Stoppen
      </button>
      <ConfirmDialog
        open={open}
        title="Challenge stoppen?"
        confirmLabel="Stoppen"
        destructive
        onConfirm={onConfirm}
        onCancel={() => setOpen(false)}
      >
        Je voortgang wordt verwijderd.
      </ConfirmDialog>
    </>
  );
}

describe("ConfirmDialog", () => {
  it("opens, confirms and cancels", () => {
    const onConfirm = vi.fn();
    const { container } = render(<Harness onConfirm={onConfirm} />);
    const dialog = container.querySelector("dialog");
    expect(dialog?.open).toBe(false);

    fireEvent.click(screen.getByText("Challenge Stoppen"));
    expect(dialog?.open).toBe(true);

    fireEvent.click(screen.getByText("Stoppen"));
    expect(onConfirm).toHaveBeenCalledTimes(1);

    fireEvent.click(screen.getByText("Annuleren"));
    expect(dialog?.open).toBe(false);
  });
});
