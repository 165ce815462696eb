import { useEffect, useState } from "react";
import { CELEBRATE_EVENT, isCelebrationKind, type CelebrationKind } from "../lib/celebrate";
import { Celebration } from "./celebration";

interface Playing {
  kind: CelebrationKind;
  /** A new key restarts the animation when another event arrives while one plays. */
  key: number;
}

export interface CelebrationHostProps {
  /** Play this once on mount (e.g. from `data-celebrate` on the mount element). */
  initialKind?: CelebrationKind | null;
}

/**
 * Renders nothing until a `koud:celebrate` event arrives on `window`, then plays that
 * celebration; a new event while one plays restarts it with the new kind.
 */
export function CelebrationHost({ initialKind = null }: CelebrationHostProps) {
  const [playing, setPlaying] = useState<Playing | null>(
    initialKind === null ? null : { kind: initialKind, key: 0 },
  );

  useEffect(() => {
    const onCelebrate = (event: CustomEvent<unknown>) => {
      const detail: unknown = event.detail;
      const kind =
        typeof detail === "object" && detail !== null && "kind" in detail ? detail.kind : null;
      if (!isCelebrationKind(kind)) return;
      setPlaying((current) => ({ kind, key: (current?.key ?? 0) + 1 }));
    };
    window.addEventListener(CELEBRATE_EVENT, onCelebrate);
    return () => window.removeEventListener(CELEBRATE_EVENT, onCelebrate);
  }, []);

  if (playing === null) return null;
  return <Celebration key={playing.key} kind={playing.kind} onDone={() => setPlaying(null)} />;
}
