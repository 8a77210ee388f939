import { Dialog } from "../../components/dialog";
import type { BotLinkTarget } from "./bot-links";
import type { ChatListItem } from "./types";

/** A bot's answerCallbackQuery alert. */
export function BotAlertDialog({ text, onClose }: { text: string | null; onClose(): void }) {
  return (
    <Dialog open={text !== null} title="Message from the bot" onClose={onClose}>
      <p>{text}</p>
      <div class="dialog-actions">
        <button type="button" class="primary" onClick={onClose}>
          OK
        </button>
      </div>
    </Dialog>
  );
}

/** A bot's link waits for a press ("Open this link?"); a sign-in page of this site is never opened. */
export function BotLinkDialogs({ link, onClose }: { link: BotLinkTarget | null; onClose(): void }) {
  return (
    <>
      <Dialog open={link !== null && link.kind !== "refused"} title="Open this link?" onClose={onClose}>
        <p>{link?.kind === "internal" ? "This link opens a page of this site:" : "This link leaves the site:"}</p>
        <p class="link-target">{link?.href}</p>
        <div class="dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
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
            Open link
          </button>
        </div>
      </Dialog>
      <Dialog open={link?.kind === "refused"} title="This link is not opened" onClose={onClose}>
        <p>
          The bot's button leads to a sign-in page of this site. Such a page can approve a sign-in on another device as
          you, so a link from a bot never opens it.
        </p>
        <p class="link-target">{link?.href}</p>
        <div class="dialog-actions">
          <button type="button" class="primary" onClick={onClose}>
            OK
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
    <Dialog open={viewer !== null} title={viewer?.alt ?? "Photo"} onClose={onClose}>
      {viewer && <img class="viewer-image" src={viewer.shownUrl ?? viewer.url} alt={viewer.alt} />}
      <div class="dialog-actions">
        {!viewer?.protectedContent && (
          <a href={viewer?.url} download>
            Download
          </a>
        )}
        <button type="button" class="primary" onClick={onClose}>
          Close
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
    <Dialog open={open} title="Forward to…" onClose={onClose}>
      <ul class="forward-list">
        {chats.map((c) => (
          <li key={c.id}>
            <button type="button" onClick={() => onChoose(c)}>
              {c.title ?? "Chat"}
            </button>
          </li>
        ))}
      </ul>
    </Dialog>
  );
}
