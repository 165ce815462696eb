import { useCallback, useEffect, useRef, useState } from "react";

export type MessageKind = "info" | "success" | "error";

export interface PageMessage {
  id: number;
  text: string;
  kind: MessageKind;
}

/** Spec section 9: a badge 5 s, completion 10 s; anything else 5 s. */
export const MESSAGE_DEFAULT_MS = 5000;

export interface MessageOptions {
  /** Remove the page's server-rendered flash (base.html) when the first message shows. Default true. */
  replacesPageFlash?: boolean;
}

/**
 * One message at a time: a new one replaces the old (no stack), and it goes after its duration. The page's
 * server-rendered flash (base.html) goes too when the first one shows, so the page never holds two.
 * Islands use it through ui/feedback.tsx.
 */
export function useMessage({ replacesPageFlash = true }: MessageOptions = {}) {
  const [message, setMessage] = useState<PageMessage | null>(null);
  const nextId = useRef(1);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  const clear = useCallback(() => {
    if (timer.current !== null) clearTimeout(timer.current);
    timer.current = null;
    setMessage(null);
  }, []);

  const show = useCallback((text: string, kind: MessageKind = "info", durationMs = MESSAGE_DEFAULT_MS) => {
    if (timer.current !== null) clearTimeout(timer.current);
    if (replacesPageFlash) document.querySelectorAll(".messages > .message").forEach((flash) => flash.remove());
    setMessage({ id: nextId.current++, text, kind });
    timer.current = setTimeout(() => {
      timer.current = null;
      setMessage(null);
    }, durationMs);
  }, [replacesPageFlash]);

  useEffect(
    () => () => {
      if (timer.current !== null) clearTimeout(timer.current);
    },
    [],
  );

  return { message, show, clear };
}

/**
 * Where an island's message stands, with the look of the server's messages (`.message` in
 * static/css/app.css); the island's class places it (the stamp card: fixed in view, `.sc-message`). The
 * live region is always rendered: screen readers only announce changes to a region that already exists.
 */
export function MessageLine({ message, className = "" }: { message: PageMessage | null; className?: string }) {
  return (
    <div className={`kw-message-line ${className}`.trim()} role="status" aria-live="polite">
      {message !== null && (
        <p key={message.id} className={`message ${message.kind}`}>
          {message.text}
        </p>
      )}
    </div>
  );
}
