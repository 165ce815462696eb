import { Component, type ErrorInfo, type ReactNode } from "react";

export interface ChunkBoundaryProps {
  /** The Dutch message in place of the part that could not load. */
  message: string;
  /** "span" inside a line of text (an action next to a dip), "p" in a form. */
  as?: "p" | "span";
  children?: ReactNode;
}

interface State {
  failed: boolean;
}

/**
 * Around a lazily loaded part of an island: when its chunk cannot load (the phone lost signal), that part
 * says so and the rest of the island stays. Without it React takes the whole island down: an empty card.
 */
export class ChunkBoundary extends Component<ChunkBoundaryProps, State> {
  override state: State = { failed: false };

  static getDerivedStateFromError(): State {
    return { failed: true };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    // Still visible to whoever looks: a part that fails for another reason is a bug to find.
    console.error(error, info.componentStack);
  }

  override render() {
    if (!this.state.failed) return this.props.children;
    const Tag = this.props.as ?? "p";
    return (
      <Tag className="field-error" role="alert">
        {this.props.message}
      </Tag>
    );
  }
}
