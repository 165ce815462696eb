// Must stay the first import: installs the React Refresh runtime in dev mode (no inline
// script needed, so the CSP holds); an empty module in the production build.
import "@vitejs/plugin-react/preamble";
import { isCelebrationKind } from "../lib/celebrate";
import { ensureMountElement, mountIsland } from "../lib/mount";
import { CelebrationHost } from "../ui/celebration-host";

/*
 * Stand-alone celebration island: `{% vite_asset 'src/islands/celebration.tsx' %}`.
 * Mounts into `#celebration-root` (created when missing) and plays on every
 * `koud:celebrate` event on `window` (see `requestCelebration` in lib/celebrate.ts).
 * A server-rendered page can also play one on load:
 *   <div id="celebration-root" data-celebrate="milestone"></div>
 */
const ROOT_ID = "celebration-root";

const requested = ensureMountElement(ROOT_ID).dataset["celebrate"];
mountIsland(ROOT_ID, CelebrationHost, {
  initialKind: isCelebrationKind(requested) ? requested : null,
});
