import { Dialog } from "../../components/dialog";
import { t } from "../../lib/i18n";
import type { BotLinkTarget } from "./bot-links";
import type { ChatListItem } from "../../lib/types";

/** A bot's answerCallbackQuery alert. */
export function BotAlertDialog({ text, onClose }: { text: string | null; onClose(): void }) {
  return (
    <Dialog open={text !== null} title={t("messages.dialogs.botMessage")} onClose={onClose}>
      <p>{text}</p>
      <div class="dialog-actions">
        <button type="button" class="primary" onClick={onClose}>
          {t("messages.dialogs.ok")}
        </button>
      </div>
    </Dialog>
  );
}

/** A bot's link waits for a press ("Open this link?"); a sign-in page of this site is never opened. */
export function BotLinkDialogs({ link, onClose }: { link: BotLinkTarget | null; onClose(): void }) {
  return (
    <>
      <Dialog open={link !== null && link.kind !== "refused"} title={t("messages.dialogs.openLink")} onClose={onClose}>
        <p>{link?.kind === "internal" ? t("messages.dialogs.internal") : t("messages.dialogs.external")}</p>
        <p class="link-target">{link?.href}</p>
        <div class="dialog-actions">
          <button type="button" onClick={onClose}>
            {t("common.cancel")}
          </button>
          <button
            type="button"
            class="primary"
            onClick={() => {
              if (link!.kind === "internal") location.assign(link!.href);
              else window.open(link!.href, "_blank", "noopener,noreferrer");
              onClose();
            }}
          >
            {t("messages.dialogs.open")}
          </button>
        </div>
      </Dialog>
      <Dialog open={link?.kind === "refused"} title={t("messages.dialogs.refusedTitle")} onClose={onClose}>
        <p>{t("messages.dialogs.refused")}</p>
        <p class="link-target">{link?.href}</p>
        <div class="dialog-actions">
          <button type="button" class="primary" onClick={onClose}>
            {t("messages.dialogs.ok")}
          </button>
        </div>
      </Dialog>
    </>
  );
}

export interface ViewedImage {
  url: string;
  alt: string;
  protectedContent?: boolean;
  shownUrl?: string;
}

/** A message's image, large; a protected one has no Download link. */
export function ImageViewerDialog({ viewer, onClose }: { viewer: ViewedImage | null; onClose(): void }) {
  return (
    <Dialog open={viewer !== null} title={viewer?.alt ?? t("messages.dialogs.photo")} onClose={onClose}>
      {viewer && <img class="viewer-image" src={viewer.shownUrl ?? viewer.url} alt={viewer.alt} />}
      <div class="dialog-actions">
        {!viewer?.protectedContent && (
          <a href={viewer?.url} download>
            {t("messages.dialogs.download")}
          </a>
        )}
        <button type="button" class="primary" onClick={onClose}>
          {t("messages.dialogs.close")}
        </button>
      </div>
    </Dialog>
  );
}

/** "Forward to…": the chats to choose from. */
export function ForwardDialog({
  open,
  chats,
  onChoose,
  onClose,
}: {
  open: boolean;
  chats: ChatListItem[];
  onChoose(chat: ChatListItem): void;
  onClose(): void;
}) {
  return (
    <Dialog open={open} title={t("messages.dialogs.forwardTo")} onClose={onClose}>
      <ul class="forward-list">
        {chats.map((c) => (
          <li key={c.id}>
            <button type="button" onClick={() => onChoose(c)}>
              {c.title ?? t("messages.chat.untitled")}
            </button>
          </li>
        ))}
      </ul>
    </Dialog>
  );
}
