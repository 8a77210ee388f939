/**
 * The closed list of realtime event names, shared by the server and the web client,
 * with the payload each carries. An event the client does not know is dropped by it,
 * so a new name is added here and in the client together.
 */
export interface RealtimeEvents {
  /** a new message in a chat; the message as the Client API shows it */
  "message:new": { conversationId: string; message: unknown };
  /** a message's text, buttons or pin changed; the whole message as the Client API shows it */
  "message:edited": { conversationId: string; message: unknown };
  /** a message was deleted for everyone (to all members) or for me (to my other devices); messageId is the shown id */
  "message:deleted": { conversationId: string; messageId: string };
  /** someone read a chat up to a message */
  "message:read": { conversationId: string; userId: string; messageId: string };
  /** a message's reactions now: reactions = [{emoji, count, userIds}] (one reaction per person) */
  "message:reaction": { conversationId: string; messageId: string; reactions: unknown };
  /** USER is typing in a chat (to the other members only; nothing is stored) */
  typing: { conversationId: string; user: { id: string; username: string } };
  /** a chat's title, description, photo or members changed: chat = {id, type, title, description, photoUrl, memberCount}; also sent to someone just removed */
  "chat:updated": { conversationId: string; chat: unknown };
  "post:deleted": { postId: string };
  "feed:new": { postIds: string[] };
  "notification:new": { notification: unknown; unreadCount: number; unseenCount: number };
  /** my notification counts changed by my own hand (read, or the list opened), in any of my windows */
  "notification:counts": { unreadCount: number; unseenCount: number };
  "story:new": { storyId: string; author: { id: string; username: string } };
  "stars:balance": { balance: number };
  /** the server closes this session's streams (sign-out, revoked session) */
  "session:revoked": { sessionId: string };
  /** realtime transport: events since the client's last id are no longer kept; refetch state */
  "stream:reset": { reason: "gap" | "unknown-id" };
  /**
   * realtime transport (Server-Sent Events; a WebSocket gets close code 4009 instead): the server
   * closes this stream because newer ones of the same session or account went over their limit.
   * Reconnecting at once would close another window's: the client waits until it is used again.
   */
  "stream:closed": { reason: "too-many-streams"; limit: "session" | "account" };
}

export type RealtimeEventName = keyof RealtimeEvents;

/** The WebSocket close code of a stream closed for newer ones of its session or account (limits.streamsPer*). */
export const STREAM_LIMIT_CLOSE_CODE = 4009;
export const realtimeEventNames = [
  "message:new",
  "message:edited",
  "message:deleted",
  "message:read",
  "message:reaction",
  "typing",
  "chat:updated",
  "post:deleted",
  "feed:new",
  "notification:new",
  "notification:counts",
  "story:new",
  "stars:balance",
  "session:revoked",
  "stream:reset",
  "stream:closed",
] as const satisfies readonly RealtimeEventName[];

/** Compile-time proof that the list above names every event of RealtimeEvents (and nothing else). */
type Unlisted = Exclude<RealtimeEventName, (typeof realtimeEventNames)[number]>;
const everyEventListed: Unlisted extends never ? true : Unlisted = true;
void everyEventListed;
