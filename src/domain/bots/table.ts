import type { Generated, Selectable } from "kysely";

export type BotPrivacy = "all" | "commands";

export interface BotsTable {
  id: Generated<number>;
  cuid: string;
  /** the bot's own account (users.is_bot = 1); its id is the Bot API user id and token prefix */
  user_id: number;
  owner_id: number;
  /** sha256 hex of the token part after the colon; the token itself is never stored */
  token_secret_hash: string;
  disabled_at: number | null;
  /** blocked by moderation (the owner cannot lift it) */
  blocked_at: number | null;
  /** "commands": in groups only commands and replies to the bot reach it; "all": every message */
  privacy: Generated<BotPrivacy>;
  description: Generated<string>;
  short_description: Generated<string>;
  /** JSON array of {command, description} */
  commands: Generated<string>;
  /** JSON BotProfile (profile.ts): per-language/scope texts and commands, menu buttons; defaults live in the columns above */
  profile_json: Generated<string>;
  /** JSON array of update types the bot asked for last (null: all) */
  allowed_updates: string | null;
  webhook_url: string | null;
  webhook_secret: string | null;
  webhook_last_error_date: number | null;
  webhook_last_error_message: string | null;
  created_at: number;
  updated_at: number;
}

export interface BotUpdatesTable {
  /** the update_id */
  id: Generated<number>;
  bot_id: number;
  type: string;
  /** JSON of the update's object (the value under `type`) */
  payload: string;
  created_at: number;
  /** set when a webhook accepted it or getUpdates acknowledged it */
  delivered_at: number | null;
  attempts: Generated<number>;
  next_attempt_at: Generated<number>;
}

/** A button press awaiting answerCallbackQuery (answerable once, until it expires). */
export interface BotPressesTable {
  id: string;
  bot_id: number;
  expires_at: number;
  answered_at: number | null;
}

export type BotRow = Selectable<BotsTable>;
export type BotUpdateRow = Selectable<BotUpdatesTable>;

export interface BotsTables {
  bots: BotsTable;
  bot_updates: BotUpdatesTable;
  bot_presses: BotPressesTable;
}
