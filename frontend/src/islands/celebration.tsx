import "@vitejs/plugin-react/preamble";
import { useState } from "react";
import { readJsonScript } from "../lib/data";
import { mountIsland } from "../lib/mount";
import type { CelebrationPageData } from "../lib/types";
import { Celebration } from "../ui/celebration";

/*
 * The completion celebration on a server-rendered page (the dashboard, after a club challenge was completed
 * with "Plons registreren" or "Doe mee"): the same drops, sparkles and badge card as on the stamp card.
 *   {{ celebration|json_script:"celebration-data" }}
 * The page includes this island only when it has a celebration to show (a message of that request).
 */
const ROOT_ID = "celebration-root";

function PageCelebration({ data }: { data: CelebrationPageData }) {
  const [shown, setShown] = useState(true);
  if (!shown) return null;
  return <Celebration kind={data.kind} badge={data.badge} onDone={() => setShown(false)} />;
}

mountIsland(ROOT_ID, PageCelebration, { data: readJsonScript<CelebrationPageData>("celebration-data") }, {
  createIfMissing: true,
});
