import "@vitejs/plugin-react/preamble";
import { readJsonScript } from "../lib/data";
import { mountIsland } from "../lib/mount";
import { Waterkant } from "../waterkant/waterkant";
import type { WaterkantProps } from "../waterkant/types";

/*
 * "Aan de waterkant" on /events/<id>/waterkant (templates/attendance/waterkant.html):
 *   {{ props|json_script:"waterkant-data" }}
 *   <div id="waterkant-root" data-props="waterkant-data">…the names, until this runs…</div>
 */
const ROOT_ID = "waterkant-root";
const dataId = document.getElementById(ROOT_ID)?.dataset["props"] ?? "waterkant-data";
mountIsland(ROOT_ID, Waterkant, readJsonScript<WaterkantProps>(dataId));
