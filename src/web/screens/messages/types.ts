import type { Rendition } from "../../components/media-image";
import type { LinkPreview } from "../../lib/types";
/** Shapes of the chat endpoints' answers (docs/client-api.md, "Chats and realtime"); unknown extra fields are ignored. */

export interface MessageEntity {
  type: string;
  offset: number;
  length: number;
  url?: string;
  language?: string;
  user?: { id: number; username?: string };
}

export interface InlineButton {
  text: string;
  callback_data?: string;
  url?: string;
  web_app?: { url: string };
  copy_text?: { text: string };
  switch_inline_query_current_chat?: string;
  pay?: boolean;
}

export interface ReplyButton {
  text: string;
}

/** A message's reply_markup, as the bot sent it (Bot API field names). */
export interface ReplyMarkup {
  inline_keyboard?: InlineButton[][];
  keyboard?: Array<Array<ReplyButton | string>>;
  resize_keyboard?: boolean;
  one_time_keyboard?: boolean;
  input_field_placeholder?: string;
  is_persistent?: boolean;
  remove_keyboard?: boolean;
  force_reply?: boolean;
}

export interface MessageMedia {
  type: "image" | "video" | "voice" | "file" | "sticker" | string;
  url: string;
  name?: string | null;
  durationMs?: number | null;
  waveform?: number[] | null;
  width?: number | null;
  height?: number | null;
  thumb?: string | null;
  thumbUrl?: string | null;
  posterUrl?: string | null;
  sizeBytes?: number | null;
  mime?: string | null;
  /** display copies of an image, smallest first */
  renditions?: Rendition[];
  /** the sender's description of an image */
  alt?: string;
}

export interface Invoice {
  title: string;
  description: string;
  currency: string;
  totalAmount: number;
  prices?: Array<{ label: string; amount: number }>;
  status: "open" | "paid" | "refunded" | string;
}

export interface Reaction {
  emoji: string;
  count: number;
  userIds: string[];
}

export interface Sender {
  id: string | null;
  username: string;
  displayName: string;
  avatarUrl: string | null;
  isBot: boolean;
  isSystem?: boolean;
}

export interface ChatMessage {
  id: string;
  messageId: number;
  conversationId: string;
  kind: "user" | "system";
  content: string;
  entities: MessageEntity[];
  media: MessageMedia[];
  replyMarkup: ReplyMarkup | null;
  invoice: Invoice | null;
  system: { action?: string; [k: string]: unknown } | null;
  sender: Sender;
  replyToId: string | null;
  replyTo: { id: string; messageId: number; content: string; sender: { username: string } } | null;
  forwardedFrom: { username?: string; displayName?: string } | null;
  reactions: Reaction[];
  pinned: boolean;
  clientMessageId?: string | null;
  createdAt: string;
  editedAt: string | null;
  caption?: string;
  location?: { latitude: number; longitude: number };
  venue?: {
    location?: { latitude: number; longitude: number };
    latitude?: number;
    longitude?: number;
    title: string;
    address: string;
  };
  dice?: { emoji: string; value: number };
  poll?: ChatPoll;
  /** the preview of the text's first link, once the server has read the page */
  linkPreview?: LinkPreview;
  contact?: { phone_number: string; first_name: string; last_name?: string };
  /** its sender (a bot's protect_content) forbids forwarding, copying and saving it */
  protectedContent?: boolean;
}

/** A bot's poll as the chat endpoints show it; myVotes is absent from live events (they are the same for everyone). */
export interface ChatPoll {
  id: string;
  question: string;
  options: Array<{ index: number; text: string; voterCount: number }>;
  totalVoterCount: number;
  isClosed: boolean;
  isAnonymous: boolean;
  type: "regular" | "quiz";
  allowsMultipleAnswers: boolean;
  allowsRevoting: boolean;
  correctOptionId: number | null;
  explanation: string | null;
  myVotes?: number[];
}

export interface Conversation {
  id: string;
  conversationId: string;
  type: "private" | "group";
  title: string | null;
  /** a group's description (null: none) */
  description: string | null;
  photoUrl: string | null;
  otherUser: { id: string; username: string; displayName: string; avatarUrl: string | null; isBot: boolean } | null;
  memberCount: number;
  myRole: string | null;
  myRights: Record<string, boolean>;
  lastReadMessageId: number;
  /** the furthest another member has read (the opened chat only; the chat list leaves it out) */
  othersReadMessageId?: number;
  lastMessageAt: string | null;
}

export interface ChatListItem extends Conversation {
  lastMessage: ChatMessage | null;
  unreadCount: number;
}

/** A message this device sent that the server has not confirmed (yet, or ever). */
export interface PendingMessage {
  clientMessageId: string;
  content: string;
  replyTo: ChatMessage | null;
  /** false: sent without the preview of its link */
  linkPreview?: boolean;
  state: "sending" | "failed";
  error?: string;
  createdAt: string;
}

export interface BotCard {
  username: string;
  displayName: string;
  description: string | null;
  shortDescription: string | null;
  commands: Array<{ command: string; description: string }>;
  enabled: boolean;
  /** what the bot set with setChatMenuButton; a web_app one is a button beside the input */
  menuButton: { type: "commands" } | { type: "default" } | { type: "web_app"; text: string; web_app: { url: string } };
}
