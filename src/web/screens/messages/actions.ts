import { createContext } from "preact";
import type { ChatMessage, Conversation } from "../../lib/types";

/** What a message's controls can do in the open chat (given by the chat view to every bubble). */
export interface ChatActions {
  conversation: Conversation;
  myId: string;
  reply(m: ChatMessage): void;
  edit(m: ChatMessage): void;
  remove(m: ChatMessage, forEveryone: boolean): void;
  react(m: ChatMessage, emoji: string | null): void;
  pin(m: ChatMessage, pinned: boolean): void;
  forward(m: ChatMessage): void;
  /** opens the report dialog for someone else's message */
  report(m: ChatMessage): void;
  /** puts TEXT into the message input (switch_inline_query_current_chat) */
  setDraft(text: string): void;
  /** sends TEXT as a message (a tapped /command) */
  send(text: string): void;
  openWebApp(m: ChatMessage, url: string): void;
  pay(m: ChatMessage): void;
  /** votes for OPTIONS in M's poll, or with none takes my vote back */
  vote(m: ChatMessage, options: number[]): Promise<void>;
  toast(text: string): void;
  alert(text: string): void;
  confirmLink(url: string): void;
  /** opens the photo viewer; a protected photo is shown without its Download link */
  /** opens the viewer on an image: URL is the original (for Download), SHOWN_URL the display copy shown */
  viewImage(url: string, alt: string, protectedContent?: boolean, shownUrl?: string): void;
}

export const ChatActionsContext = createContext<ChatActions | null>(null);
