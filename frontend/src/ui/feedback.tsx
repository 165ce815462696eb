import { createContext, useContext, type ReactNode } from "react";
import { MessageLine, useMessage, type MessageKind, type PageMessage } from "./message";

/**
 * An island's feedback: one message at a time (a new one replaces the old, each goes after its own
 * duration), said from anywhere inside the island with {@link useSay} and shown where {@link Feedback}
 * stands: as a line with the page's message look (the stamp card, whose CSS fixes it in view above the
 * phone's bottom bar, wherever the action was), or as a toast
 * (ui/toast.tsx `FeedbackToast`: the admin tables, whose actions are spread over the page). The toast
 * lives in its own module so that an island with the line does not carry it.
 */
export type Say = (text: string, kind?: MessageKind, durationMs?: number) => void;

export interface Shown {
  message: PageMessage | null;
  dismiss: () => void;
}

// Two contexts: the parts that only speak do not re-render for every message.
const SayContext = createContext<Say | null>(null);
const ShownContext = createContext<Shown | null>(null);

export interface FeedbackProviderProps {
  children?: ReactNode;
  /** Remove the page's server-rendered flash when the first message shows (see ui/message). */
  replacesPageFlash?: boolean;
}

export function FeedbackProvider({ children, replacesPageFlash = true }: FeedbackProviderProps) {
  const { message, show, clear } = useMessage({ replacesPageFlash });
  return (
    <SayContext value={show}>
      <ShownContext value={{ message, dismiss: clear }}>{children}</ShownContext>
    </SayContext>
  );
}

export function useSay(): Say {
  const say = useContext(SayContext);
  if (say === null) throw new Error("useSay: render inside <FeedbackProvider>.");
  return say;
}

/** The message shown now, for a look of its own (ui/toast.tsx). */
export function useShown(): Shown {
  const shown = useContext(ShownContext);
  if (shown === null) throw new Error("Feedback: render inside <FeedbackProvider>.");
  return shown;
}

/** Where the island's message shows as a line; a live region that is always rendered (see ui/message). */
export function Feedback({ className = "" }: { className?: string }) {
  return <MessageLine message={useShown().message} className={className} />;
}
