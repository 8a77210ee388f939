import type { Catalog } from "./en";

/**
 * A chat's service message as stored (messages.system): what happened, with the names and
 * values its text needs, so each reader sees it worded in their own language. The stored
 * `content` is the same text in the instance's default language, for readers that do not word
 * it themselves (older apps, exports, search).
 */
export type SystemMessage =
  | { action: "group_created"; actor: string; title: string }
  | { action: "member_added" | "member_removed"; actor: string; user: string }
  | { action: "member_left" | "member_joined"; user: string }
  | { action: "title_changed"; actor: string; title: string; oldTitle: string | null }
  | { action: "photo_changed" | "photo_removed"; actor: string; photoUrl: string | null }
  | {
      action: "payment";
      payer: string;
      bot: string;
      title: string;
      totalAmount: number;
      currency: "XTR";
      /** the invoice message's id in the chat */
      invoiceMessageId: number;
      chargeId: string;
    }
  | { action: "refund"; title: string; totalAmount: number; currency: "XTR"; chargeId: string };

/** A key of the catalogs' `server.chat` block. */
export type ChatNoticeKey = keyof Catalog["server"]["chat"];

/** Which stored fields each action's text names, under the name its catalog text uses. */
const NAMED: Record<SystemMessage["action"], Record<string, string>> = {
  group_created: { actor: "actor", title: "title" },
  member_added: { actor: "actor", user: "user" },
  member_removed: { actor: "actor", user: "user" },
  member_left: { user: "user" },
  member_joined: { user: "user" },
  title_changed: { actor: "actor", title: "title" },
  photo_changed: { actor: "actor" },
  photo_removed: { actor: "actor" },
  payment: { payer: "payer", bot: "bot", title: "title", amount: "totalAmount" },
  refund: { title: "title", amount: "totalAmount" },
};

/**
 * The catalog key (`server.chat.<key>`) and values of a stored service message's text, for
 * `t(key, values)` in the reader's language; null when SYSTEM is no structure this code
 * words (an action it does not know, or a row from before its names were stored): show the
 * stored `content` then.
 */
export function systemMessageText(
  system: unknown,
): { key: ChatNoticeKey; values: Record<string, string | number> } | null {
  if (!system || typeof system !== "object") return null;
  const stored = system as Record<string, unknown>;
  const action = stored.action;
  if (typeof action !== "string" || !Object.hasOwn(NAMED, action)) return null;
  const values: Record<string, string | number> = {};
  for (const [name, field] of Object.entries(NAMED[action as SystemMessage["action"]])) {
    const value = stored[field];
    if (typeof value !== "string" && typeof value !== "number") return null;
    values[name] = value;
  }
  return { key: action as ChatNoticeKey, values };
}
