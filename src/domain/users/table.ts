import type { Generated, Selectable } from "kysely";

export interface UsersTable {
  id: Generated<number>;
  cuid: string;
  email: string | null;
  username: string;
  /** lower-cased username, unique; lookups are case-insensitive */
  username_lower: string;
  display_name: string;
  bio: Generated<string>;
  avatar_url: string | null;
  cover_url: string | null;
  cover_video_url: string | null;
  password_hash: string | null;
  is_admin: Generated<number>;
  is_bot: Generated<number>;
  /** the instance's own account that delivers system messages (2FA codes) */
  is_system: Generated<number>;
  email_verified_at: number | null;
  disabled_at: number | null;
  posting_blocked_until: number | null;
  two_factor_method: Generated<"none" | "totp" | "email" | "messenger">;
  totp_secret: string | null;
  /** secret shown by totp/setup, waiting for a first correct code */
  totp_pending_secret: string | null;
  /** last TOTP time step accepted, so a code cannot be replayed */
  totp_last_step: number | null;
  /** JSON array of sha256 hashes of unused recovery codes */
  recovery_codes: string | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
  /** follows rows to and from this account, kept by triggers (see the counters migration) */
  followers_count: Generated<number>;
  following_count: Generated<number>;
  /** one more on every change of cuid, username, display name, picture, flags, bio, cover or creation time (a trigger) */
  profile_version: Generated<number>;
  /** the account's posts, reposts included, kept by triggers (20261124215200_user_posts_count) */
  posts_count: Generated<number>;
  /** the language the server writes to the person in (src/locales/languages.ts); null: the instance's default */
  language: string | null;
}

/**
 * The columns triggers keep as counts (follows, posts). An account as the app passes it around
 * (UserRow) leaves them out, so kept sessions (SessionCache) outlive the writes that move them;
 * whoever shows a count reads it with the rest of what it shows.
 */
export const USER_COUNTER_COLUMNS = ["followers_count", "following_count", "posts_count"] as const;

/** An account's row without its counters (USER_COUNTER_COLUMNS): a full row is one too. */
export type UserRow = Omit<Selectable<UsersTable>, (typeof USER_COUNTER_COLUMNS)[number]>;

/** UserRow's columns, in the table's order: for a statement that names what it selects (compiled.ts rowSplitter). */
export const USER_ROW_COLUMNS = Object.keys({
  id: 1,
  cuid: 1,
  email: 1,
  username: 1,
  username_lower: 1,
  display_name: 1,
  bio: 1,
  avatar_url: 1,
  cover_url: 1,
  cover_video_url: 1,
  password_hash: 1,
  is_admin: 1,
  is_bot: 1,
  is_system: 1,
  email_verified_at: 1,
  disabled_at: 1,
  posting_blocked_until: 1,
  two_factor_method: 1,
  totp_secret: 1,
  recovery_codes: 1,
  created_at: 1,
  updated_at: 1,
  deleted_at: 1,
  totp_pending_secret: 1,
  totp_last_step: 1,
  profile_version: 1,
  language: 1,
} satisfies Record<keyof UserRow, 1>) as (keyof UserRow)[];

export interface UsersTables {
  users: UsersTable;
}
