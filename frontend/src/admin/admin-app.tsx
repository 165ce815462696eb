import { createPortal } from "react-dom";
import { Invitations } from "./invitations";
import { PhotoCollage } from "./photo-collage";
import { AdminToastProvider } from "./shared";
import type { AdminData } from "./types";
import { Users } from "./users";
import "./admin.css";

export interface AdminTargets {
  photos: Element | null;
  invitations: Element | null;
  users: Element | null;
}

export interface AdminAppProps {
  data: AdminData;
  /** The server-rendered sections' roots; a missing one is skipped. */
  targets: AdminTargets;
}

/**
 * One React tree for the three admin sections, rendered into their sections with portals,
 * so they share one toast region.
 */
export function AdminApp({ data, targets }: AdminAppProps) {
  const { endpoints, currentUserId } = data;
  return (
    <AdminToastProvider>
      {targets.photos !== null && createPortal(<PhotoCollage endpoint={endpoints.photos} />, targets.photos)}
      {targets.invitations !== null &&
        createPortal(<Invitations endpoints={endpoints} />, targets.invitations)}
      {targets.users !== null &&
        createPortal(<Users endpoints={endpoints} currentUserId={currentUserId} />, targets.users)}
    </AdminToastProvider>
  );
}
