import type { Generated, Selectable } from "kysely";

export interface SessionsTable {
  id: Generated<number>;
  cuid: string;
  user_id: number;
  access_hash: string;
  access_expires_at: number;
  refresh_hash: string;
  /** the refresh hash before the last rotation; presenting it again means theft → revoke */
  prev_refresh_hash: string | null;
  refresh_expires_at: number;
  /** when the refresh token was last rotated; the previous one is accepted briefly for racing requests */
  refreshed_at: number | null;
  user_agent: Generated<string>;
  ip: Generated<string>;
  device_id: string | null;
  created_at: number;
  last_seen_at: number;
  revoked_at: number | null;
}

export type SessionRow = Selectable<SessionsTable>;

export interface SessionsTables {
  sessions: SessionsTable;
}
