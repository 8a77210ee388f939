import type { Generated, Selectable } from "kysely";

export type AuditTargetType =
  "account" | "post" | "comment" | "story" | "bot" | "setting" | "instance" | "message" | "report" | "invite" | "job";

/**
 * One action an administrator took: written before the action runs, completed with its outcome
 * (details), withdrawn if the domain refused it (see `audited`).
 */
export interface AdminAuditTable {
  id: Generated<number>;
  cuid: string;
  actor_id: number;
  actor_username: string;
  action: string;
  target_type: AuditTargetType;
  /** public id of the target: cuid, username or config key */
  target_id: string;
  /** what a reader recognises the target by: @username, the start of a post, a key */
  target_label: string;
  /** JSON object of the action's parameters and outcome */
  details: Generated<string>;
  created_at: number;
}

export type AdminAuditRow = Selectable<AdminAuditTable>;

/** A setting an administrator changed on the running instance; it overrides the config file on every node. */
export interface LiveSettingsTable {
  key: string;
  /** JSON of the parsed value */
  value: string;
  updated_at: number;
  /** the administrator's account id; null when set with `socialctl config set` */
  updated_by: number | null;
}

export interface AdminTables {
  admin_audit: AdminAuditTable;
  live_settings: LiveSettingsTable;
}
