import { useState } from "react";
import { errorBodyOf } from "../lib/api";
import { useSay } from "../ui/feedback";
import { ActionButton, errorText } from "./shared";
import { T } from "./texts";

const FALLBACK_FILENAME = "nieuwsbrief.csv";

function filenameOf(response: Response): string {
  const match = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") ?? "");
  return match?.[1] ?? FALLBACK_FILENAME;
}

/**
 * 'Exporteer CSV'. The page's plain link works without JavaScript; this button fetches the file first, so
 * that 'Geen nieuwsbrief abonnees gevonden' shows on the page instead of being saved as a file, and a
 * started download is confirmed ('CSV gedownload').
 */
export function NewsletterExport({ endpoint }: { endpoint: string }) {
  const [busy, setBusy] = useState(false);
  const notify = useSay();

  const exportCsv = async () => {
    if (busy) return;
    setBusy(true);
    try {
      const response = await fetch(endpoint, {
        credentials: "same-origin",
        headers: { Accept: "text/csv, application/json" },
      });
      const type = response.headers.get("Content-Type") ?? "";
      if (response.ok && type.startsWith("text/csv")) {
        const url = URL.createObjectURL(await response.blob());
        const link = document.createElement("a");
        link.href = url;
        link.download = filenameOf(response);
        document.body.append(link);
        link.click();
        link.remove();
        // The download has its own copy; give the browser a moment to start it before freeing the blob.
        setTimeout(() => URL.revokeObjectURL(url), 1000);
        notify(T.exportDone, "success");
        return;
      }
      const body = errorBodyOf(type.includes("application/json") ? await response.json() : null);
      notify(errorText({ ok: false, status: response.status, message: "", loginUrl: null, body }, T.exportFailed), "error");
    } catch {
      notify(T.exportFailed, "error");
    } finally {
      setBusy(false);
    }
  };

  return (
    <ActionButton variant="secondary" onClick={() => void exportCsv()} busy={busy} busyLabel={T.exporting}>
      {T.exportCsv}
    </ActionButton>
  );
}
