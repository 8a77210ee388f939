import { signal } from "@preact/signals";
import { api, describeError } from "../../lib/api";
import { onRealtime } from "../../lib/realtime";
import { account } from "../../lib/session";
import type { ChatListItem, ChatMessage, Conversation } from "../../lib/types";

/**
 * The chat list, shared by the list and the open chat: newest activity first, kept live by
 * the realtime events (a new message moves its chat to the top and counts as unread unless
 * it is mine or its chat is open).
 */
export const chats = signal<ChatListItem[]>([]);
export const chatsLoaded = signal(false);
export const chatsError = signal<string | null>(null);
export const chatsNextCursor = signal<string | null>(null);
/** The conversation shown beside the list (null: none). */
export const openChatId = signal<string | null>(null);

export async function loadChats(cursor: string | null = null): Promise<void> {
  try {
    const r = await api.get<{ conversations: ChatListItem[]; pageInfo: { nextCursor: string | null } }>(
      "/social/messages",
      { cursor, limit: 50 },
    );
    // the open chat is being read: a count the server made a moment before its read marker is stale
    const fresh = r.conversations.map((c) =>
      c.id === openChatId.value && document.visibilityState === "visible" ? { ...c, unreadCount: 0 } : c,
    );
    chats.value = cursor ? [...chats.value, ...fresh.filter((c) => !chats.value.some((x) => x.id === c.id))] : fresh;
    chatsNextCursor.value = r.pageInfo.nextCursor;
    chatsError.value = null;
  } catch (err) {
    chatsError.value = describeError(err);
  } finally {
    chatsLoaded.value = true;
  }
}

function update(id: string, fn: (c: ChatListItem) => ChatListItem): boolean {
  let found = false;
  chats.value = chats.value.map((c) => (c.id === id ? ((found = true), fn(c)) : c));
  return found;
}

/** Puts a chat (just opened or created) into the list if it is not there yet. */
export function rememberChat(conversation: Conversation): void {
  if (chats.value.some((c) => c.id === conversation.id)) update(conversation.id, (c) => ({ ...c, ...conversation }));
  else chats.value = [{ ...conversation, lastMessage: null, unreadCount: 0 }, ...chats.value];
}

/** My read marker moved: the open chat has nothing unread. */
export function markChatRead(id: string): void {
  update(id, (c) => (c.unreadCount ? { ...c, unreadCount: 0 } : c));
}

function messageArrived(conversationId: string, message: ChatMessage): void {
  const mine = message.sender.id === account.value?.id;
  const current = chats.value.find((c) => c.id === conversationId);
  if (!current) {
    // a chat someone just started with me: its title and picture come from the server
    void loadChats();
    return;
  }
  const unread = mine || openChatId.value === conversationId ? current.unreadCount : current.unreadCount + 1;
  const moved = { ...current, lastMessage: message, unreadCount: unread, lastMessageAt: message.createdAt };
  chats.value = [moved, ...chats.value.filter((c) => c.id !== conversationId)];
}

let installed = false;

/** Subscribes the list to realtime events once for the app's lifetime. */
export function installChatListLive(): void {
  if (installed) return;
  installed = true;
  onRealtime("message:new", ({ conversationId, message }) => messageArrived(conversationId, message as ChatMessage));
  onRealtime("message:edited", ({ conversationId, message }) => {
    const m = message as ChatMessage;
    update(conversationId, (c) => (c.lastMessage?.id === m.id ? { ...c, lastMessage: m } : c));
  });
  onRealtime("message:deleted", ({ conversationId, messageId }) => {
    const c = chats.value.find((x) => x.id === conversationId);
    if (c?.lastMessage?.id === messageId) void loadChats();
  });
  onRealtime("chat:updated", ({ conversationId, chat }) => {
    update(conversationId, (c) => ({ ...c, ...(chat as Partial<Conversation>), id: c.id }));
    // members changed (or I was removed): the server's list is the truth
    void loadChats();
  });
  onRealtime("stream:reset", () => void loadChats());
}
