import type { Generated, Selectable } from "kysely";

/** What a person may be told about by a push, each switchable (GET/PATCH /api/account/notification-settings). */
export const PUSH_KINDS = ["messages", "mentions", "replies", "follows", "reactions", "payments"] as const;
export type PushKind = (typeof PUSH_KINDS)[number];

/** A browser's Web Push subscription (RFC 8030), made by a signed-in session: it ends with that session. */
export interface PushSubscriptionsTable {
  id: Generated<number>;
  cuid: string;
  user_id: number;
  session_id: number;
  /** the push service's URL for this browser: unique, a browser re-subscribing replaces its row */
  endpoint: string;
  /** the browser's P-256 public key and auth secret (RFC 8291), base64url */
  p256dh: string;
  auth: string;
  /** the subscribing browser's User-Agent, for the list of devices */
  user_agent: string;
  created_at: number;
  /** when the push service last accepted a push for it */
  last_used_at: number | null;
}

/** Which kinds of push an account gets; no row: every kind. 1 on, 0 off. */
export interface NotificationSettingsTable {
  user_id: number;
  push_messages: Generated<number>;
  push_mentions: Generated<number>;
  push_replies: Generated<number>;
  push_follows: Generated<number>;
  push_reactions: Generated<number>;
  push_payments: Generated<number>;
  /** 1: mail a digest of what was missed when away (off by default) */
  email_digest: Generated<number>;
  /** when the last digest was queued; one absence gets one */
  email_digest_sent_at: number | null;
  updated_at: number;
}

/** The chat a session has on screen now (the app tells, and repeats while it stays): no push about it. */
export interface ChatViewingTable {
  session_id: number;
  user_id: number;
  conversation_id: number;
  /** the app repeats before this passes; a closed tab simply stops repeating */
  until: number;
}

export type PushSubscriptionRow = Selectable<PushSubscriptionsTable>;

export interface PushTables {
  push_subscriptions: PushSubscriptionsTable;
  notification_settings: NotificationSettingsTable;
  chat_viewing: ChatViewingTable;
}
