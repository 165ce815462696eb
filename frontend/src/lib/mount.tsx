import { StrictMode, type ComponentType } from "react";
import { createRoot, type Root } from "react-dom/client";

export interface MountOptions {
  /** Append `<div id="{elementId}">` to `<body>` when the page has no such element. */
  createIfMissing?: boolean;
}

/** The roots this page created, so that running an island entry twice re-renders instead. */
const roots = new WeakMap<Element, Root>();

/** Returns `#elementId`, creating it at the end of `<body>` when it is missing. */
export function ensureMountElement(elementId: string): HTMLElement {
  const existing = document.getElementById(elementId);
  if (existing !== null) return existing;
  const element = document.createElement("div");
  element.id = elementId;
  document.body.append(element);
  return element;
}

/**
 * Renders `Component` into the element with id `elementId` (React 18+ `createRoot`).
 * Throws when the element is missing (a template bug), unless `createIfMissing` is set.
 */
export function mountIsland(
  elementId: string,
  Component: ComponentType<Record<string, never>>,
  props?: undefined,
  options?: MountOptions,
): Root;
export function mountIsland<P extends object>(
  elementId: string,
  Component: ComponentType<P>,
  props: P,
  options?: MountOptions,
): Root;
export function mountIsland<P extends object>(
  elementId: string,
  Component: ComponentType<P>,
  props?: P,
  options: MountOptions = {},
): Root {
  const element = options.createIfMissing
    ? ensureMountElement(elementId)
    : document.getElementById(elementId);
  if (element === null) {
    throw new Error(`mountIsland: no element with id "${elementId}" on this page.`);
  }
  let root = roots.get(element);
  if (root === undefined) {
    root = createRoot(element);
    roots.set(element, root);
  }
  root.render(
    <StrictMode>
      <Component {...((props ?? {}) as P)} />
    </StrictMode>,
  );
  return root;
}

/** Unmounts the island rendered into `#elementId`, if any: its effects stop and its timers are cleared. */
export function unmountIsland(elementId: string): void {
  const element = document.getElementById(elementId);
  const root = element === null ? undefined : roots.get(element);
  if (element === null || root === undefined) return;
  root.unmount();
  roots.delete(element);
}
