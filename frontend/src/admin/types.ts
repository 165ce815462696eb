/** The data the /admin page hands the islands (`{{ islands|json_script:"admin-data" }}`). */
export interface AdminEndpoints {
  /** The newsletter CSV; answers 404 JSON with the message when there are no subscribers. */
  newsletterExport: string;
  photos: string;
  invitations: string;
  invitationCreate: string;
  invitationBulk: string;
  /** Contains `{id}`. */
  invitationDelete: string;
  /** Contains `{id}`. */
  invitationResend: string;
  users: string;
  /** Contains `{id}`. */
  userDelete: string;
  /** Contains `{id}`: POST {"organiser": true|false}. */
  userOrganiser: string;
}

/** The numbers on the admin screen (`admin_stats_payload`); actions that change them answer with new ones. */
export interface AdminStats {
  users: number;
  activeChallenges: number;
  dips: number;
  subscribers: number;
  dipsThisWeek: number;
  newMembersThisMonth: number;
}

export interface AdminData {
  currentUserId: number;
  stats: AdminStats;
  endpoints: AdminEndpoints;
}

export interface Photo {
  dipId: number;
  /** Already 'Anonieme zwemmer' when the member has no name. */
  userName: string;
  dipDateDisplay: string;
  photoUrl: string;
  thumbnailUrl: string;
}

export interface PhotoPage {
  photos: Photo[];
  next: string | null;
}

export type InvitationStatus = "active" | "used" | "expired";

export interface Invitation {
  id: number;
  code: string;
  email: string | null;
  status: InvitationStatus;
  statusLabel: string;
  createdAtDisplay: string;
  expiresAtDisplay: string;
  usedBy: string | null;
  usedAtDisplay: string | null;
  /** Absolute `/auth?invite=CODE` link. */
  link: string;
  /** The invitation mail: null when the invitation has no address. */
  mailStatus: MailStatus | null;
  mailStatusLabel: string | null;
}

export type MailStatus = "queued" | "sending" | "sent" | "failed" | "suppressed";

export interface InvitationPage {
  invitations: Invitation[];
  next: string | null;
}

export interface InvitationCreated {
  message: string;
  invitation: Invitation;
}

export interface InvitationBulkCreated {
  message: string;
  invitations: Invitation[];
  skipped: string[];
}

export interface MessageResponse {
  message: string;
}

export interface UserDeleted extends MessageResponse {
  stats: AdminStats;
}

export interface AdminUser {
  id: number;
  email: string;
  name: string;
  /** ISO 8601. */
  createdAt: string;
  createdAtDisplay: string;
  newsletter: boolean;
  dipCount: number;
  isAdmin: boolean;
  /** The role "Organisator": events, attendance and club messages on /admin. */
  isOrganiser: boolean;
}

/** The answer to the organiser switch: the user's row as the list shows it now. */
export interface UserOrganiserChanged extends MessageResponse {
  user: AdminUser;
}

/** One page of the users table (at most 100 rows); `next` is the cursor of the following page. */
export interface UsersResponse {
  users: AdminUser[];
  next: string | null;
}
