import type { ConversationRow, MessageRow } from "./chats/table";
import type { PostRow } from "./posts/table";
import type { StoryRow } from "./stories/table";
import type { UserRow } from "./users/table";

type Chat = Pick<ConversationRow, "id" | "cuid">;
type Message = Pick<MessageRow, "id" | "cuid">;
type Person = Pick<UserRow, "id" | "cuid" | "username">;

/**
 * What happened in the domain that people see live, told in domain terms: ids and the
 * rows (or the columns of them that matter), never a surface's payload. `to` is who is
 * concerned (account ids), which only the domain knows. Each surface turns an event into
 * its own wire shape: the Client API's realtime events in src/clientapi/realtime.ts.
 * Plain data throughout (no Dates, no class instances), so a pub/sub between server
 * processes can carry an event as JSON.
 */
export type DomainEvent =
  /** a chat's title, description, photo or members changed (TO includes anyone just removed) */
  | {
      type: "chat:changed";
      to: readonly number[];
      conversation: Pick<ConversationRow, "id" | "cuid" | "type" | "title" | "description" | "photo_url">;
      memberCount: number;
    }
  /** MESSAGE was deleted: for everyone (TO: the members) or for one member (TO: that member's devices) */
  | { type: "message:deleted"; to: readonly number[]; conversation: Chat; message: Message }
  /** MESSAGE's reactions are now REACTIONS, grouped by emoji (userIds are the reacting people's cuids) */
  | {
      type: "message:reactions";
      to: readonly number[];
      conversation: Chat;
      message: Message;
      reactions: Array<{ emoji: string; count: number; userIds: string[] }>;
    }
  /** READER has read the chat up to SEQ (MESSAGE, the message at SEQ, when it still exists) */
  | {
      type: "chat:read";
      to: readonly number[];
      conversation: Chat;
      reader: Pick<UserRow, "id" | "cuid"> | null;
      seq: number;
      message: Message | null;
    }
  /** USER is typing in the chat (nothing is stored) */
  | { type: "chat:typing"; to: readonly number[]; conversation: Chat; user: Person }
  /** AUTHOR published POSTS (new posts or reposts) */
  | { type: "posts:published"; to: readonly number[]; authorId: number; posts: Array<Pick<PostRow, "id" | "cuid">> }
  /** POST was deleted */
  | { type: "post:deleted"; to: readonly number[]; post: Pick<PostRow, "id" | "cuid"> }
  /** AUTHOR posted STORY */
  | { type: "story:posted"; to: readonly number[]; story: Pick<StoryRow, "id" | "cuid">; author: Person }
  /** the star balance of account USERID is now BALANCE */
  | { type: "stars:balance"; to: readonly number[]; userId: number; balance: number }
  /** USERID's session SESSIONCUID was revoked (signed out elsewhere, password changed, account disabled or deleted) */
  | { type: "session:revoked"; to: readonly number[]; userId: number; sessionCuid: string };

export type DomainEventType = DomainEvent["type"];
export type DomainEventOf<T extends DomainEventType> = Extract<DomainEvent, { type: T }>;
