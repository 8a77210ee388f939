import type { Generated, Selectable } from "kysely";

export interface AuthCaptchasTable {
  id: Generated<number>;
  /** the captchaId the client sends back */
  cuid: string;
  /** expected answer, lower case */
  answer: string;
  /** the accepted answers of the text question (the non-visual alternative), lower case, one a line */
  question_answers: string | null;
  expires_at: number;
  created_at: number;
}

/** What a one-time code or token proves (sign_in_link: the sandbox's one-time sign-in link, see sign-in-links.ts). */
export type AuthCodePurpose = "email_verify" | "password_reset" | "login_email" | "login_messenger" | "sign_in_link";

/** One-time secrets sent to a person: a link token, a short code, or both. Only hashes are kept. */
export interface AuthCodesTable {
  id: Generated<number>;
  user_id: number;
  purpose: AuthCodePurpose;
  token_hash: string | null;
  code_hash: string | null;
  /** wrong guesses of the short code; the code dies after a few */
  attempts: Generated<number>;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

export interface QrLoginsTable {
  id: Generated<number>;
  token_hash: string;
  /** the account that approved the login from a signed-in device */
  user_id: number | null;
  expires_at: number;
  approved_at: number | null;
  claimed_at: number | null;
  /** the person refused it on their signed-in device */
  refused_at: number | null;
  /** the device that asked, shown to the person who approves */
  user_agent: string | null;
  ip: string | null;
  created_at: number;
}

export interface BannedDevicesTable {
  id: Generated<number>;
  device_id: string;
  /** whose sessions the device was banned through */
  user_id: number | null;
  created_at: number;
}

/** A sign-up invite (registration mode `invite`): a code an administrator hands out. */
export interface AuthInvitesTable {
  id: Generated<number>;
  /** the code a person types or gets in the link; shown again to administrators */
  code: string;
  /** the administrator who made it (null once that account is gone, or made by the CLI) */
  created_by: number | null;
  max_uses: number;
  uses: Generated<number>;
  expires_at: number;
  revoked_at: number | null;
  created_at: number;
}

export type AuthInviteRow = Selectable<AuthInvitesTable>;
export type AuthCodeRow = Selectable<AuthCodesTable>;
export type QrLoginRow = Selectable<QrLoginsTable>;

export interface AuthTables {
  auth_captchas: AuthCaptchasTable;
  auth_codes: AuthCodesTable;
  auth_invites: AuthInvitesTable;
  qr_logins: QrLoginsTable;
  banned_devices: BannedDevicesTable;
}
