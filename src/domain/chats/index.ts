/**
 * The chats domain, used by both surfaces: the Client API (people) and the Bot API (bots are
 * ordinary accounts, users.is_bot = 1, in the same conversations). Conversations are named
 * by integer id here; `seq` is the per-conversation message number (Bot API message_id,
 * Client API messageId).
 */
export * from "./table";
export * from "./validate";
export * from "./access";
export * from "./conversations";
export * from "./messages";
export * from "./members";
export * from "./media";
export * from "./polls";
export { publishMessageEvent, publishChatUpdated } from "./notify";
export { sendSystemNotice } from "./system-account";
