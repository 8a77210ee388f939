import type { App } from "../app";
import { storiesPastRetention } from "../domain/stories/cleanup";
import { purgeUnreferencedUploads } from "../media/references";
import { removeStaleScratch } from "../media/store";
import { registerCleanup } from "./housekeeping";
import { DONE_JOBS_KEPT_MS, purgeDoneJobs } from "../jobs/dead-letters";
import { removeEndedPushState } from "../domain/push/service";
import { inTransaction } from "../db/transaction";
import { queueEmailDigests } from "../domain/notifications/email-digest";
import { dropExpiredPreviews } from "../domain/links/preview";

const HOUR_MS = 3_600_000;
/** Rows handled per run and per statement: a run never holds the write lock for long; the rest waits for the next run. */
const BATCH = 1000;
const MAX_BATCHES = 50;
/** Scratch files (request bodies, video work) older than this were left by a crash. */
const SCRATCH_MAX_AGE_MS = 6 * HOUR_MS;

export const CLEANUP_NAMES = [
  "uploads:abandoned",
  "uploads:released",
  "uploads:scratch",
  "stories:media",
  "bots:updates",
  "jobs:done",
  "push:ended",
  "mail:digests",
  "links:previews",
] as const;

/**
 * The cleanups of stored data, run by the serving process every housekeeping.everySeconds.
 *
 * Realtime needs none: the resume log (src/realtime/resume-log.ts) lives in memory only,
 * bounded in time (realtime.retentionSeconds, pruned as events are recorded) and in size
 * (RING_PER_USER events per account, src/realtime/hub.ts; an emptied ring is a few bytes),
 * and nothing of it is written to the database.
 */
export function registerDataCleanups(app: App): void {
  const everyMs = app.config["housekeeping.everySeconds"] * 1000;
  registerCleanup(app, "uploads:abandoned", everyMs, removeAbandonedUploads);
  registerCleanup(app, "uploads:released", everyMs, removeReleasedUploads);
  registerCleanup(app, "uploads:scratch", everyMs, (a) => removeStaleScratch(a, a.clock.now() - SCRATCH_MAX_AGE_MS));
  registerCleanup(app, "stories:media", everyMs, removeExpiredStoryMedia);
  registerCleanup(app, "bots:updates", everyMs, removeOldBotUpdates);
  // the job queue's finished jobs, once they have stopped being of interest to an operator
  registerCleanup(app, "jobs:done", everyMs, (a) => purgeDoneJobs(a.db, Date.now() - DONE_JOBS_KEPT_MS));
  // subscriptions of sessions ended by another process (the CLI) or by expiry, and lapsed "chat on screen" words
  registerCleanup(app, "push:ended", everyMs, (a) => removeEndedPushState(a.db, a.clock.now()));
  // not a cleanup, but as periodic: queues the e-mail digests of people away for mail.digestAfterHours
  registerCleanup(app, "mail:digests", everyMs, queueEmailDigests);
  registerCleanup(app, "links:previews", everyMs, (a) => dropExpiredPreviews(a.db, a.clock.now()));
}

/**
 * Uploads nobody used within uploads.abandonAfterHours go, row and files. attached_at is not
 * trusted alone (files sent by bots are never marked): an upload any row still points at
 * stays, and is marked attached. Returns the uploads removed.
 */
export async function removeAbandonedUploads(app: App): Promise<number> {
  const now = app.clock.now();
  const candidates = await app.db
    .selectFrom("uploads")
    .select(["id", "storage_key", "thumb_url", "poster_url"])
    .where("attached_at", "is", null)
    .where("created_at", "<", now - app.config["uploads.abandonAfterHours"] * HOUR_MS)
    .orderBy("created_at")
    .limit(BATCH * 5)
    .execute();
  return purgeUnreferencedUploads(app, candidates, now);
}

/**
 * Uploads whose users went (released by a deletion: src/media/references.ts releaseFilesIn)
 * go, row and files, at the next run, as deleted stories' media do, unless a row still points
 * at them (those are marked attached again). Returns the uploads removed.
 */
export async function removeReleasedUploads(app: App): Promise<number> {
  const candidates = await app.db
    .selectFrom("uploads")
    .select(["id", "storage_key", "thumb_url", "poster_url"])
    .where("released_at", "is not", null)
    .where("attached_at", "is", null)
    .orderBy("released_at")
    .limit(BATCH * 5)
    .execute();
  return purgeUnreferencedUploads(app, candidates, app.clock.now());
}

/**
 * Stories expired (or deleted) more than stories.mediaRetentionHours ago are removed with
 * their views, and their media files go unless something else uses the same upload.
 * Returns the uploads removed.
 */
export async function removeExpiredStoryMedia(app: App): Promise<number> {
  const now = app.clock.now();
  const stories = await storiesPastRetention(app.db, now, app.config["stories.mediaRetentionHours"] * HOUR_MS, BATCH);
  if (stories.length === 0) return 0;
  // by file name: the URL keeps the baseUrl of upload time
  const keys = [...new Set(stories.map((s) => s.media_url.split("/").pop()!))];
  // one transaction: the stories go and their uploads become unattached candidates together,
  // so a crash before the files are deleted leaves them to the abandoned-uploads cleanup
  await inTransaction(app.storage, async ({ db: tx }) => {
    await tx
      .deleteFrom("stories")
      .where(
        "id",
        "in",
        stories.map((s) => s.id),
      )
      .execute();
    await tx.updateTable("uploads").set({ attached_at: null }).where("storage_key", "in", keys).execute();
  });
  const uploads = await app.db
    .selectFrom("uploads")
    .select(["id", "storage_key", "thumb_url", "poster_url"])
    .where("storage_key", "in", keys)
    .execute();
  return purgeUnreferencedUploads(app, uploads, now);
}

/**
 * Bot updates are kept at most bot.updateRetentionHours once delivered, and undelivered
 * ones at most bot.pendingUpdateHours (24 h, as Telegram keeps them; 0 keeps them until
 * fetched). Returns the rows deleted.
 */
export async function removeOldBotUpdates(app: App): Promise<number> {
  const now = app.clock.now();
  const deliveredBefore = now - app.config["bot.updateRetentionHours"] * HOUR_MS;
  const pendingHours = app.config["bot.pendingUpdateHours"];
  let deleted = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    const ids = await app.db
      .selectFrom("bot_updates")
      .select("id")
      .where((eb) =>
        pendingHours > 0
          ? eb.or([
              eb("delivered_at", "<", deliveredBefore),
              eb.and([eb("delivered_at", "is", null), eb("created_at", "<", now - pendingHours * HOUR_MS)]),
            ])
          : eb("delivered_at", "<", deliveredBefore),
      )
      .limit(BATCH)
      .execute();
    if (ids.length === 0) break;
    const res = await app.db
      .deleteFrom("bot_updates")
      .where(
        "id",
        "in",
        ids.map((r) => r.id),
      )
      .executeTakeFirst();
    deleted += Number(res.numDeletedRows);
    if (ids.length < BATCH) break;
    await new Promise((r) => setImmediate(r));
  }
  return deleted;
}
