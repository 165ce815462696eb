import { createPortal } from "react-dom";
import { Invitations } from "./invitations";
import { NewsletterExport } from "./newsletter-export";
import { PhotoCollage } from "./photo-collage";
import { AdminToastProvider } from "./shared";
import { StatsProvider, type StatTargets } from "./stats";
import type { AdminData } from "./types";
import { Users } from "./users";
import "./admin.css";

export interface AdminTargets {
  photos: Element | null;
  invitations: Element | null;
  users: Element | null;
  newsletter?: Element | null;
  /** The server-rendered numbers, emptied for the island to fill. */
  stats?: StatTargets;
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
      <StatsProvider initial={data.stats} targets={targets.stats ?? {}}>
        {targets.newsletter != null &&
          createPortal(<NewsletterExport endpoint={endpoints.newsletterExport} />, targets.newsletter)}
        {targets.photos !== null && createPortal(<PhotoCollage endpoint={endpoints.photos} />, targets.photos)}
        {targets.invitations !== null &&
          createPortal(<Invitations endpoints={endpoints} />, targets.invitations)}
        {targets.users !== null &&
          createPortal(<Users endpoints={endpoints} currentUserId={currentUserId} />, targets.users)}
      </StatsProvider>
    </AdminToastProvider>
  );
}
