import type { RefObject } from "preact";
import { t } from "../../lib/i18n";
import { Avatar } from "../../components/avatar";
import { SearchIcon } from "../../components/icon";
import type { Conversation } from "../../lib/types";

/** The open chat's header: back, picture, title, who is typing (or who it is), search, Report for a bot, Group info. */
export function ChatHeader({
  conversation,
  typingUser,
  searching,
  searchToggle,
  showInfo,
  onBack,
  onToggleSearch,
  onReportBot,
  onToggleInfo,
}: {
  conversation: Conversation;
  typingUser: string | null;
  searching: boolean;
  searchToggle: RefObject<HTMLButtonElement | null>;
  showInfo: boolean;
  onBack(): void;
  onToggleSearch(): void;
  onReportBot(): void;
  onToggleInfo(): void;
}) {
  const title = conversation.title ?? t("messages.chat.untitled");
  const other = conversation.otherUser;
  return (
    <header class="chat-head">
      <button type="button" class="back-button" onClick={onBack} aria-label={t("messages.header.back")}>
        ←
      </button>
      {other ? (
        <Avatar user={other} size={32} />
      ) : (
        <span class="avatar avatar-letter hue-3" aria-hidden="true" data-size="32">
          {title.charAt(0).toUpperCase()}
        </span>
      )}
      <div class="chat-head-text">
        <h2 id="chat-title">{title}</h2>
        <p class="muted chat-sub" aria-live="polite">
          {typingUser
            ? t("messages.header.typing", { name: typingUser })
            : other
              ? other.isBot
                ? t("messages.header.bot", { username: other.username })
                : `@${other.username}`
              : t("messages.header.members", { count: conversation.memberCount })}
        </p>
      </div>
      <button
        type="button"
        ref={searchToggle}
        class="icon-button"
        aria-label={t("messages.header.search")}
        aria-expanded={searching}
        aria-controls="chat-search"
        onClick={onToggleSearch}
      >
        <SearchIcon size={18} />
      </button>
      {other?.isBot && (
        <button type="button" onClick={onReportBot}>
          {t("messages.header.report")}
        </button>
      )}
      {conversation.type === "group" && (
        <button type="button" onClick={onToggleInfo} aria-expanded={showInfo}>
          {t("messages.header.groupInfo")}
        </button>
      )}
    </header>
  );
}

/** The bar of the newest pinned message: a press brings it into view. */
export function PinnedBar({ pinned }: { pinned: { messageId: number; content: string } }) {
  return (
    <button
      type="button"
      class="pinned-bar"
      onClick={() =>
        document.querySelector(`[data-message-id="${pinned.messageId}"]`)?.scrollIntoView({ block: "center" })
      }
    >
      <span class="pinned-label">{t("messages.header.pinned")}</span>{" "}
      <span class="pinned-text">{pinned.content || t("messages.header.attachment")}</span>
    </button>
  );
}
