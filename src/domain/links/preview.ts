import type { App } from "../../app";
import type { Db } from "../../db";
import type { Scope } from "../../db/transaction";
import { enqueueJob, type JsonValue } from "../../jobs/queue";
import { publishMessageEvent } from "../chats/notify";
import { firstLink } from "../../lib/links";

/** What a page says of itself in its head: each field null when the page does not say it. */
export interface PagePreview {
  title: string | null;
  description: string | null;
  /** absolute http(s) URL of the page's image, as the page names it */
  imageUrl: string | null;
  siteName: string | null;
}

/** A preview as posts and messages show it: the link it is for and what its page says. */
export interface LinkPreview extends PagePreview {
  url: string;
}

/**
 * A post's or message's `link_preview` column: the link its preview is for and where that
 * preview stands. `off`: its author removed the preview (or a bot disabled it). `preview`:
 * absent while the page is being read, null when it gave nothing to show.
 * `options`: a bot's link_preview_options as given, answered back in its Message objects.
 */
export interface LinkPreviewState {
  url: string;
  off?: true;
  preview?: PagePreview | null;
  options?: Record<string, unknown>;
}

/** How a page's preview is kept: long when read, shorter when it failed or said nothing. */
export const PREVIEW_TTL_MS = 24 * 3600_000;
export const FAILED_PREVIEW_TTL_MS = 3600_000;

/** The job that reads a page for a post or message (the handler is the network's side: http/link-preview.ts). */
export const LINK_PREVIEW_JOB = "links:preview";

export interface LinkPreviewJob {
  table: "posts" | "messages";
  id: number;
  url: string;
}

/** The kept preview of URL while it lasts: `{preview}` (null: nothing to show), or undefined when not kept. */
export async function keptPagePreview(
  db: Db,
  url: string,
  now: number,
): Promise<{ preview: PagePreview | null } | undefined> {
  const row = await db
    .selectFrom("link_previews")
    .select(["preview", "expires_at"])
    .where("url", "=", url)
    .executeTakeFirst();
  if (!row || row.expires_at <= now) return undefined;
  return { preview: row.preview === null ? null : (JSON.parse(row.preview) as PagePreview) };
}

/** Keeps what was read of URL (null: nothing to show), for PREVIEW_TTL_MS, or FAILED_PREVIEW_TTL_MS when null. */
export async function keepPagePreview(db: Db, url: string, preview: PagePreview | null, now: number): Promise<void> {
  const values = {
    preview: preview === null ? null : JSON.stringify(preview),
    fetched_at: now,
    expires_at: now + (preview === null ? FAILED_PREVIEW_TTL_MS : PREVIEW_TTL_MS),
  };
  await db
    .insertInto("link_previews")
    .values({ url, ...values })
    .onConflict((oc) => oc.column("url").doUpdateSet(values))
    .execute();
}

/** Expired previews one housekeeping run forgets at most: the rest wait for the next run. */
const EXPIRED_BATCH = 1000;

/** Forgets previews that expired (housekeeping): a post made later reads its page again. */
export async function dropExpiredPreviews(db: Db, now: number): Promise<number> {
  const result = await db
    .deleteFrom("link_previews")
    .where("url", "in", (eb) =>
      eb.selectFrom("link_previews").select("url").where("expires_at", "<=", now).limit(EXPIRED_BATCH),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** How the author of a text asks for its preview: `off` removes it; `url` previews another link (bots). */
export interface PreviewChoice {
  off?: boolean;
  url?: string;
  options?: Record<string, unknown>;
}

/**
 * The preview state of a text being stored: null when it has no link (and no other link was
 * named); with the kept preview when the page was read lately. PREVIOUS, on an edit, keeps the
 * author's removal while the link stays the same.
 */
export async function previewStateFor(
  db: Db,
  content: string,
  choice: PreviewChoice,
  now: number,
  previous?: LinkPreviewState | null,
): Promise<LinkPreviewState | null> {
  const url = choice.url ?? firstLink(content);
  if (url === null) return choice.options ? { url: "", off: true, options: choice.options } : null;
  const options = choice.options ? { options: choice.options } : {};
  if (choice.off || (choice.off === undefined && previous?.off && previous.url === url))
    return { url, off: true, ...options };
  if (previous && previous.url === url && previous.preview !== undefined)
    return { url, preview: previous.preview, ...options };
  const kept = await keptPagePreview(db, url, now);
  return kept ? { url, preview: kept.preview, ...options } : { url, ...options };
}

/** Whether STATE still waits for its page to be read. */
export const previewPending = (state: LinkPreviewState | null): state is LinkPreviewState =>
  state !== null && !state.off && state.preview === undefined && state.url !== "";

/** Queues the reading of STATE's page for the post or message TARGET, in SCOPE's transaction, when it is still unknown. */
export async function queuePreview(
  scope: Scope,
  target: Omit<LinkPreviewJob, "url">,
  state: LinkPreviewState | null,
): Promise<void> {
  if (!previewPending(state)) return;
  const job: LinkPreviewJob = { ...target, url: state.url };
  await enqueueJob(scope, LINK_PREVIEW_JOB, job as unknown as JsonValue, { key: `${target.table}:${target.id}` });
}

/** A stored state, read from its column. */
export const parsePreviewState = (column: string | null): LinkPreviewState | null =>
  column === null ? null : (JSON.parse(column) as LinkPreviewState);

/** The preview a reader is shown for a stored state: null while unknown, removed, or when the page said nothing. */
export function shownPreview(column: string | null): LinkPreview | null {
  const state = parsePreviewState(column);
  if (!state || state.off || !state.preview) return null;
  return { url: state.url, ...state.preview };
}

/**
 * Puts PREVIEW (read from the job's URL) on the job's post or message, unless its text has
 * changed link or its author removed the preview since; a message's members see it arrive
 * as an edit of the message.
 */
export async function applyPagePreview(app: App, job: LinkPreviewJob, preview: PagePreview | null): Promise<void> {
  const table = job.table;
  const row = await app.db.selectFrom(table).select(["link_preview"]).where("id", "=", job.id).executeTakeFirst();
  const read = row?.link_preview ?? null;
  const state = parsePreviewState(read);
  if (read === null || !state || state.url !== job.url || state.off) return;
  const next = JSON.stringify({ ...state, preview } satisfies LinkPreviewState);
  // only over the state just read: an edit that came between has the last word
  if (table === "posts") {
    await app.db
      .updateTable("posts")
      .set({ link_preview: next })
      .where("id", "=", job.id)
      .where("link_preview", "=", read)
      .execute();
    return;
  }
  const message = await app.db
    .updateTable("messages")
    .set({ link_preview: next })
    .where("id", "=", job.id)
    .where("link_preview", "=", read)
    .where("deleted_at", "is", null)
    .returningAll()
    .executeTakeFirst();
  if (!message || preview === null) return;
  const conversation = await app.db
    .selectFrom("conversations")
    .select(["id", "cuid"])
    .where("id", "=", message.conversation_id)
    .executeTakeFirst();
  if (conversation) await publishMessageEvent(app, conversation, message, "message:edited");
}
