import { createContext, useContext, useState, type ReactNode } from "react";
import { createPortal } from "react-dom";
import { T } from "./texts";
import type { AdminStats } from "./types";

export type StatTargets = Partial<Record<keyof AdminStats, Element | null>>;

type UpdateStats = (stats: AdminStats) => void;

const UpdateStatsContext = createContext<UpdateStats>(() => undefined);

/** Sections call this with the numbers an action answered with (a deleted user changes them all). */
export function useUpdateStats(): UpdateStats {
  return useContext(UpdateStatsContext);
}

/**
 * The server renders the stat cards and the subscriber count (they work without JavaScript); the island
 * takes them over, so every action that changes a number shows the new one without a reload.
 */
export function StatsProvider({
  initial,
  targets,
  children,
}: {
  initial: AdminStats;
  targets: StatTargets;
  children?: ReactNode;
}) {
  const [stats, setStats] = useState(initial);
  const portal = (key: keyof AdminStats, content: ReactNode) => {
    const target = targets[key];
    return target === null || target === undefined ? null : createPortal(content, target, key);
  };
  return (
    <UpdateStatsContext value={setStats}>
      {portal("users", String(stats.users))}
      {portal("activeChallenges", String(stats.activeChallenges))}
      {portal("dips", String(stats.dips))}
      {portal("dipsThisWeek", String(stats.dipsThisWeek))}
      {portal("newMembersThisMonth", String(stats.newMembersThisMonth))}
      {portal(
        "subscribers",
        <>
          <strong>{stats.subscribers}</strong> {T.subscribers(stats.subscribers)}
          {T.subscribersTail}
        </>,
      )}
      {children}
    </UpdateStatsContext>
  );
}
