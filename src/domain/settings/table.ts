import type { Generated } from "kysely";

export const WHO_CAN_MESSAGE = ["everyone", "followed", "nobody"] as const;
export type WhoCanMessage = (typeof WHO_CAN_MESSAGE)[number];

/** One row per account that changed a setting; absent row = defaults. */
export interface UserSettingsTable {
  user_id: number;
  who_can_message: Generated<WhoCanMessage>;
  updated_at: number;
}

export interface SettingsTables {
  user_settings: UserSettingsTable;
}
