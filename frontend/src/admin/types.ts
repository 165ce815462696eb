/** The data the /admin page hands the islands (`{{ islands|json_script:"admin-data" }}`). */
export interface AdminEndpoints {
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
}

export interface AdminData {
  currentUserId: number;
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

export type MailStatus = "queued" | "sent" | "failed" | "suppressed";

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
}

export interface UsersResponse {
  users: AdminUser[];
}
