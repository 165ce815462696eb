import "@vitejs/plugin-react/preamble";
import { enhanceConfirmDialogs } from "../lib/confirm-dialogs";
import { readJsonScript } from "../lib/data";
import { mountIsland } from "../lib/mount";
import { StampCard } from "../stampcard/stamp-card";
import type { StampCardData, TogetherData } from "../stampcard/types";

/*
 * The stamp card on /challenge:
 *   {{ stamp_card|json_script:"stampcard-data" }}
 *   <div id="stampcard-root" data-props="stampcard-data">…server-rendered fallback…</div>
 * Rendering replaces the fallback.
 */
const ROOT_ID = "stampcard-root";

const dataId = document.getElementById(ROOT_ID)?.dataset["props"] ?? "stampcard-data";
// Samen plonsen's part (apps/together), beside the card's own props when the page has it.
const together = document.getElementById("together-data") ? readJsonScript<TogetherData>("together-data") : null;
mountIsland(ROOT_ID, StampCard, { initial: readJsonScript<StampCardData>(dataId), together });

// 'Challenge Stoppen' on the same page: its confirmation opens as a dialog.
enhanceConfirmDialogs();
