import type { Generated } from "kysely";

export const WHO_CAN_MESSAGE = ["everyone", "followed", "nobody"] as const;
export type WhoCanMessage = (typeof WHO_CAN_MESSAGE)[number];

/** One row per account that changed a setting; absent row = defaults. */
export interface UserSettingsTable {
  user_id: number;
  who_can_message: Generated<WhoCanMessage>;
  /** 1: bots may open a chat by writing first (within who_can_message); 0: only after the person wrote */
  bots_may_write_first: Generated<number>;
  updated_at: number;
}

export interface SettingsTables {
  user_settings: UserSettingsTable;
}
