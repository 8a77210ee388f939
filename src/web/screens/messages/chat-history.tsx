import { memo } from "preact/compat";
import { t } from "../../lib/i18n";
import type { RefObject } from "preact";
import { useMemo } from "preact/hooks";
import { blockKey, blockReadUpTo, blocksOf, foundInBlock, type HistoryWindow } from "./history-window";
import { MessageBubble, PendingBubble } from "./message";
import { formatDay } from "../../lib/format";
import { language } from "../../lib/i18n";
import type { BotCard, ChatMessage } from "../../lib/types";
import type { PendingMessage } from "./message";

// each render walks the whole loaded history; Intl formatting is the costly part of it (reading
// the language also has a block render again when it changes)
const dayLabels = new Map<string, string>();
function dayOf(iso: string): string {
  const key = `${language.value} ${iso}`;
  let label = dayLabels.get(key);
  if (label === undefined) {
    if (dayLabels.size > 50_000) dayLabels.clear();
    dayLabels.set(key, (label = formatDay(iso)));
  }
  return label;
}

const sameItems = <T,>(a: T[], b: T[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** One block's rows with their day separators (DAY_BEFORE: the day of the message above it). */
const MessageBlock = memo(
  function MessageBlock({
    messages,
    dayBefore,
    readUpTo,
    found,
  }: {
    messages: ChatMessage[];
    dayBefore: string;
    readUpTo: number;
    /** the messageId of the search result shown in this block, else null */
    found: number | null;
  }) {
    let lastDay = dayBefore;
    return (
      <>
        {/* keyed rows: the rows already shown keep their elements */}
        {messages.flatMap((m) => {
          const d = dayOf(m.createdAt);
          const sep = d !== lastDay;
          lastDay = d;
          const bubble = (
            <MessageBubble key={m.id} message={m} readByOther={m.messageId <= readUpTo} found={m.messageId === found} />
          );
          return sep
            ? [
                <li key={`day-${d}`} class="day-separator">
                  <span>{d}</span>
                </li>,
                bubble,
              ]
            : [bubble];
        })}
      </>
    );
  },
  (a, b) =>
    a.dayBefore === b.dayBefore &&
    a.readUpTo === b.readUpTo &&
    a.found === b.found &&
    sameItems(a.messages, b.messages),
);

/**
 * The scrolled history: the ends that page in more (the sentinels the chat watches), the
 * messages in memoised blocks, the rows being sent, and "Show the newest messages" over it
 * while the newest are let go.
 */
export function ChatHistory({
  history,
  paging,
  pending,
  otherRead,
  found,
  empty,
  refs,
  onRetry,
  onDiscard,
  onShowNewest,
}: {
  history: HistoryWindow;
  paging: "older" | "newer" | null;
  pending: PendingMessage[];
  otherRead: number;
  found: number | null;
  /** what an empty chat shows (null: nothing) */
  empty: preact.ComponentChildren;
  refs: {
    scroller: RefObject<HTMLDivElement | null>;
    list: RefObject<HTMLOListElement | null>;
    topSentinel: RefObject<HTMLDivElement | null>;
    bottomSentinel: RefObject<HTMLDivElement | null>;
  };
  onRetry(p: PendingMessage): void;
  onDiscard(p: PendingMessage): void;
  onShowNewest(): void;
}) {
  const { messages } = history;
  const blocks = useMemo(() => blocksOf(messages), [messages]);
  return (
    <div class="history-frame">
      <div class="history" ref={refs.scroller} tabIndex={0} aria-label={t("messages.history.label")} role="region">
        <div ref={refs.topSentinel} class="history-top">
          {paging === "older" ? (
            <p class="loading" role="status">
              {t("messages.history.loadingOlder")}
            </p>
          ) : !history.oldestCursor && messages.length > 0 ? (
            <p class="muted">{t("messages.history.beginning")}</p>
          ) : null}
        </div>
        {messages.length === 0 && pending.length === 0 && empty}
        <ol class="messages" ref={refs.list}>
          {blocks.map((block, i) => (
            <MessageBlock
              key={blockKey(block)}
              messages={block}
              dayBefore={i ? dayOf(blocks[i - 1]!.at(-1)!.createdAt) : ""}
              readUpTo={blockReadUpTo(block, otherRead)}
              found={foundInBlock(block, found)}
            />
          ))}
          {pending.map((p) => (
            <PendingBubble
              key={p.clientMessageId}
              pending={p}
              onRetry={() => onRetry(p)}
              onDiscard={() => onDiscard(p)}
            />
          ))}
        </ol>
        {history.newestCursor && (
          <div ref={refs.bottomSentinel} class="history-bottom">
            {paging === "newer" && (
              <p class="loading" role="status">
                {t("messages.history.loadingNewer")}
              </p>
            )}
          </div>
        )}
      </div>
      {/* over the history, not below it: showing or hiding it never resizes what is read */}
      {history.newestCursor && (
        <button type="button" class="newest-button" onClick={onShowNewest}>
          {t("messages.history.showNewest")}
        </button>
      )}
    </div>
  );
}

/** An empty chat: the bot's card with Start, or an invitation to say hello. */
export function EmptyChat({ bot, onStart }: { bot: BotCard | null; onStart(): void }) {
  return (
    <div class="chat-empty">
      {bot ? (
        <>
          <h3>{bot.displayName}</h3>
          {bot.description ? (
            <p class="bot-description">{bot.description}</p>
          ) : (
            <p class="muted">{t("messages.history.noDescription")}</p>
          )}
          <button type="button" class="primary" onClick={onStart}>
            {t("messages.history.start")}
          </button>
        </>
      ) : (
        <p class="muted">{t("messages.history.empty")}</p>
      )}
    </div>
  );
}
