import { memo } from "preact/compat";
import { chatNotice, t } from "../../lib/i18n";
import { useContext, useEffect, useRef, useState } from "preact/hooks";
import { ChatActionsContext } from "./actions";
import { ChatPollView } from "./chat-poll";
import { MessageText } from "./entities";
import { InlineKeyboard } from "./inline-keyboard";
import { MediaList } from "./media";
import { LinkPreviewCard } from "../../components/link-preview";
import type { ChatMessage } from "../../lib/types";

/** A message this device sent that the server has not confirmed (yet, or ever): the device's own state, no payload. */
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
import { formatNumber, formatTime } from "../../lib/format";

const QUICK_REACTIONS = ["👍", "❤️", "😂", "🔥", "😮"];

/** One message in the open chat; memo: a long history re-renders only what changed. */
export const MessageBubble = memo(function MessageBubble({
  message,
  readByOther,
  found = false,
}: {
  message: ChatMessage;
  readByOther: boolean;
  /** the search result being shown: highlighted */
  found?: boolean;
}) {
  const actions = useContext(ChatActionsContext)!;
  const mine = message.sender.id === actions.myId;
  if (message.kind === "system") {
    return (
      <li class="msg-system" data-message-id={message.messageId}>
        <span>{chatNotice(message.system, message.content) || describeSystem(message)}</span>
      </li>
    );
  }
  const showSender = !mine && actions.conversation.type === "group";
  // a sticker alone is shown without a bubble, as bot developers expect of sendSticker
  const stickerOnly = !message.content && message.media.length === 1 && message.media[0]!.type === "sticker";
  return (
    <li
      class={`msg ${mine ? "mine" : "theirs"}${stickerOnly ? " sticker-only" : ""}${found ? " found" : ""}`}
      data-message-id={message.messageId}
      aria-current={found ? "true" : undefined}
      aria-label={t(found ? "messages.message.foundLabel" : "messages.message.label", {
        who: mine ? t("messages.message.you") : message.sender.displayName,
        time: formatTime(message.createdAt),
      })}
    >
      <article class="bubble">
        {showSender && <p class="msg-sender">{message.sender.displayName}</p>}
        {message.forwardedFrom && (
          <p class="msg-forwarded">
            {t("messages.message.forwardedFrom", {
              name: message.forwardedFrom.displayName ?? message.forwardedFrom.username,
            })}
          </p>
        )}
        {message.replyTo && (
          <p class="msg-reply-preview">
            <span class="reply-author">@{message.replyTo.sender.username}</span> {message.replyTo.content}
          </p>
        )}
        <MediaList media={message.media} protectedContent={message.protectedContent === true} />
        <Extras message={message} />
        {message.invoice && <InvoiceCard message={message} />}
        {message.content && (
          <div class="msg-text">
            <MessageText
              text={message.content}
              entities={message.entities}
              onCommand={message.sender.isBot || actions.conversation.otherUser?.isBot ? actions.send : undefined}
            />
          </div>
        )}
        {message.linkPreview && <LinkPreviewCard preview={message.linkPreview} />}
        <p class="msg-meta">
          {message.pinned && <span class="pin-mark">{t("messages.message.pinned")} · </span>}
          {message.editedAt && <span>{t("messages.message.edited")} · </span>}
          <time dateTime={message.createdAt}>{formatTime(message.createdAt)}</time>
          {mine && (
            <span class="tick">
              {" · "}
              {readByOther ? t("messages.message.read") : t("messages.message.sent")}
            </span>
          )}
        </p>
        {message.reactions.length > 0 && (
          <ul class="reactions" aria-label={t("messages.message.reactions")}>
            {message.reactions.map((r) => {
              const mineToo = r.userIds.includes(actions.myId);
              return (
                <li key={r.emoji}>
                  <button
                    type="button"
                    aria-pressed={mineToo}
                    onClick={() => actions.react(message, mineToo ? null : r.emoji)}
                    aria-label={`${r.emoji} ${r.count}`}
                  >
                    {r.emoji} {r.count}
                  </button>
                </li>
              );
            })}
          </ul>
        )}
        <InlineKeyboard message={message} />
      </article>
      <MessageMenu message={message} mine={mine} />
    </li>
  );
});

function describeSystem(m: ChatMessage): string {
  const action = m.system?.action ?? "update";
  return action.replace(/_/g, " ");
}

/** The per-message menu: reply, react, edit, pin, forward, report, delete. */
function MessageMenu({ message, mine }: { message: ChatMessage; mine: boolean }) {
  const actions = useContext(ChatActionsContext)!;
  const [open, setOpen] = useState(false);
  const menu = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (open) menu.current?.scrollIntoView({ block: "nearest" });
  }, [open]);
  const conv = actions.conversation;
  const canPin = conv.type === "private" || conv.myRole === "creator" || !!conv.myRights.can_pin_messages;
  const canDeleteAll = mine || conv.myRole === "creator" || !!conv.myRights.can_delete_messages;
  const act = (fn: () => void) => () => {
    setOpen(false);
    fn();
  };
  return (
    <div class="msg-menu" onKeyDown={(e) => e.key === "Escape" && setOpen(false)}>
      <button
        type="button"
        class="icon-button"
        aria-expanded={open}
        aria-label={t("messages.menu.label")}
        onClick={() => setOpen(!open)}
      >
        ⋯
      </button>
      {open && (
        <div class="menu" role="group" aria-label={t("messages.menu.label")} ref={menu}>
          <div class="menu-reactions">
            {QUICK_REACTIONS.map((e) => (
              <button
                type="button"
                key={e}
                aria-label={t("messages.menu.react", { emoji: e })}
                onClick={act(() => actions.react(message, e))}
              >
                {e}
              </button>
            ))}
          </div>
          <button type="button" onClick={act(() => actions.reply(message))}>
            {t("messages.menu.reply")}
          </button>
          {mine && !message.media.length && !message.invoice && (
            <button type="button" onClick={act(() => actions.edit(message))}>
              {t("messages.menu.edit")}
            </button>
          )}
          {canPin && (
            <button type="button" onClick={act(() => actions.pin(message, !message.pinned))}>
              {message.pinned ? t("messages.menu.unpin") : t("messages.menu.pin")}
            </button>
          )}
          {!message.protectedContent && (
            <button type="button" onClick={act(() => actions.forward(message))}>
              {t("messages.menu.forward")}
            </button>
          )}
          {message.content && !message.protectedContent && (
            <button
              type="button"
              onClick={act(
                () =>
                  void navigator.clipboard?.writeText(message.content).then(
                    () => actions.toast(t("messages.menu.copied")),
                    () => actions.toast(t("messages.menu.notCopied")),
                  ),
              )}
            >
              {t("messages.menu.copy")}
            </button>
          )}
          {!mine && !message.sender.isSystem && message.kind !== "system" && (
            <button type="button" onClick={act(() => actions.report(message))}>
              {t("messages.menu.report")}
            </button>
          )}
          <button type="button" onClick={act(() => actions.remove(message, false))}>
            {t("messages.menu.deleteForMe")}
          </button>
          {canDeleteAll && (
            <button type="button" class="danger" onClick={act(() => actions.remove(message, true))}>
              {t("messages.menu.deleteForAll")}
            </button>
          )}
        </div>
      )}
    </div>
  );
}

/** Location, venue, dice, poll and contact messages. No map tiles: coordinates and a link out. */
function Extras({ message }: { message: ChatMessage }) {
  const venue = message.venue;
  const loc = venue ? (venue.location ?? { latitude: venue.latitude!, longitude: venue.longitude! }) : message.location;
  return (
    <>
      {loc && (
        <p class="msg-location">
          {venue && (
            <>
              <strong>{venue.title}</strong>
              <br />
              {venue.address}
              <br />
            </>
          )}
          📍 {loc.latitude.toFixed(5)}, {loc.longitude.toFixed(5)} ·{" "}
          <a
            href={`https://www.openstreetmap.org/?mlat=${loc.latitude}&mlon=${loc.longitude}#map=16/${loc.latitude}/${loc.longitude}`}
            target="_blank"
            rel="noopener noreferrer"
          >
            {t("messages.message.openMap")}
          </a>
        </p>
      )}
      {message.dice && (
        <p
          class="msg-dice"
          aria-label={t("messages.message.dice", { emoji: message.dice.emoji, value: message.dice.value })}
        >
          <span class="dice-emoji" aria-hidden="true">
            {message.dice.emoji}
          </span>{" "}
          <strong aria-hidden="true">{message.dice.value}</strong>
        </p>
      )}
      {message.poll && <ChatPollView message={message} poll={message.poll} />}
      {message.contact && (
        <p class="msg-contact">
          👤 {message.contact.first_name} {message.contact.last_name ?? ""} ·{" "}
          <a href={`tel:${message.contact.phone_number}`}>{message.contact.phone_number}</a>
        </p>
      )}
    </>
  );
}

/** An invoice: title, description, price in stars and Pay (or its outcome). */
function InvoiceCard({ message }: { message: ChatMessage }) {
  const actions = useContext(ChatActionsContext)!;
  const inv = message.invoice!;
  const hasPayButton = message.replyMarkup?.inline_keyboard?.some((row) => row.some((b) => b.pay));
  return (
    <section class="invoice" aria-label={t("messages.invoice.label", { title: inv.title })}>
      <h3>{inv.title}</h3>
      <p>{inv.description}</p>
      <p class="invoice-price">★ {formatNumber(inv.totalAmount)}</p>
      {inv.status === "paid" ? (
        <p class="invoice-status paid">{t("messages.invoice.paid")}</p>
      ) : inv.status === "refunded" ? (
        <p class="invoice-status">{t("messages.invoice.refunded")}</p>
      ) : (
        !hasPayButton && (
          <button type="button" class="primary" onClick={() => actions.pay(message)}>
            {t("messages.invoice.pay", { amount: inv.totalAmount })}
          </button>
        )
      )}
    </section>
  );
}

/** A message of mine the server has not confirmed: sending…, or failed with Retry. */
export function PendingBubble({
  pending,
  onRetry,
  onDiscard,
}: {
  pending: PendingMessage;
  onRetry: () => void;
  onDiscard: () => void;
}) {
  return (
    <li
      class={`msg mine pending ${pending.state}`}
      aria-label={pending.state === "failed" ? t("messages.pending.notSentLabel") : t("messages.pending.sendingLabel")}
    >
      <article class="bubble">
        {pending.replyTo && (
          <p class="msg-reply-preview">
            @{pending.replyTo.sender.username} {pending.replyTo.content}
          </p>
        )}
        <div class="msg-text">{pending.content}</div>
        <p class="msg-meta">
          {pending.state === "sending" ? (
            <span role="status">{t("messages.pending.sending")}</span>
          ) : (
            <>
              <span class="field-error" role="alert">
                {pending.error
                  ? t("messages.pending.notSentBecause", { error: pending.error })
                  : t("messages.pending.notSent")}
              </span>{" "}
              <button type="button" class="link-like" onClick={onRetry}>
                {t("messages.pending.retry")}
              </button>{" "}
              <button type="button" class="link-like" onClick={onDiscard}>
                {t("messages.pending.discard")}
              </button>
            </>
          )}
        </p>
      </article>
    </li>
  );
}
