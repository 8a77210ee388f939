import { Excerpt } from "../../components/excerpt";
import { formatDateTime, formatRelative } from "../../lib/format";
import type { ChatMessage, Conversation } from "../../lib/types";
import { t } from "../../lib/i18n";

/** A message search found, with the chat it is in (null: a chat the answer did not name). */
export interface FoundMessage {
  id: string;
  message: ChatMessage;
  chat: Conversation | null;
}

/** Where a found message opens: its chat, loaded around it. */
export const messageHref = (m: Pick<ChatMessage, "id" | "conversationId">) =>
  `/dashboard/messages/${m.conversationId}?message=${encodeURIComponent(m.id)}`;

/** Messages found: each names its chat and sender, shows its words found marked, and opens the chat at it. */
export function FoundMessages({ found, q }: { found: FoundMessage[]; q: string }) {
  return (
    <ul class="card result-list found-messages">
      {found.map(({ id, message, chat }) => {
        const sender = message.sender.displayName || message.sender.username;
        return (
          <li key={id} class="found-message">
            <a href={messageHref(message)}>
              <span class="found-where">
                <span class="found-chat">{chat?.title ?? t("search.chat")}</span>
                {/* a private chat is named after the other person: their own messages need no second name */}
                {sender !== chat?.title && (
                  <span class="muted">
                    {" · "}
                    {sender}
                  </span>
                )}
                <span class="visually-hidden">: </span>
              </span>
              <span class="found-text">
                <Excerpt text={message.content} q={q} />
              </span>
            </a>
            <time class="muted" dateTime={message.createdAt} title={formatDateTime(message.createdAt)}>
              {formatRelative(message.createdAt)}
            </time>
          </li>
        );
      })}
    </ul>
  );
}
