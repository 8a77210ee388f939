import { defineService, type App } from "../../app";
import type { Db } from "../../db";
import { toIso } from "../../lib/clock";
import { getSettings } from "../settings/service";
import type { UserRow } from "../users/table";

/**
 * One section of a person's data export, read through DB (the storage's connection for long
 * reads: a section reads all of a person's rows of a kind). It must return only that
 * person's own data (and what anyone may see of others: usernames), never another person's
 * private data.
 */
export type ExportSection = (db: Db, user: UserRow) => Promise<unknown>;

const sections = defineService("account:export-sections", () => new Map<string, ExportSection>());

/**
 * Adds a section to APP's `GET /api/account/export` (posts, messages…). Features call it
 * from their hook installers (run by wiring.ts); registering the same name again replaces it.
 */
export function registerExportSection(app: App, name: string, section: ExportSection): void {
  app.services.get(sections).set(name, section);
}

/** Accounts on the other side of USER's follows, blocks or mutes, with the time. */
async function relationList(
  db: Db,
  table: "follows" | "blocks" | "mutes",
  mine: string,
  other: string,
  userId: number,
) {
  const rows = await (db as any)
    .selectFrom(table)
    .innerJoin("users", "users.id", `${table}.${other}`)
    .select(["users.username as username", `${table}.created_at as since`])
    .where(`${table}.${mine}`, "=", userId)
    .where("users.deleted_at", "is", null)
    .orderBy(`${table}.created_at`, "asc")
    .execute();
  return (rows as Array<{ username: string; since: number }>).map((r) => ({
    username: r.username,
    since: toIso(r.since),
  }));
}

/** Top-level names the Client API fills itself (account, profile, notifications); sections never take them. */
const RESERVED = new Set(["exportedAt", "account", "profile", "notifications"]);

/**
 * Everything about USER the service keeps apart from the account, profile and notifications
 * (which the Client API serializes): settings, relations, stories, sessions and every
 * registered section, as one JSON object.
 */
export async function exportAccountData(app: App, user: UserRow): Promise<Record<string, unknown>> {
  const db = app.storage.longReads;
  const stories = await db
    .selectFrom("stories")
    .select(["cuid", "media_url", "media_kind", "caption", "created_at"])
    .where("author_id", "=", user.id)
    .where("deleted_at", "is", null)
    .orderBy("created_at", "asc")
    .execute();
  const sessions = await db
    .selectFrom("sessions")
    .select(["cuid", "user_agent", "ip", "created_at", "last_seen_at", "revoked_at"])
    .where("user_id", "=", user.id)
    .orderBy("created_at", "asc")
    .execute();

  const out: Record<string, unknown> = {
    settings: await getSettings(db, user.id),
    follows: {
      following: await relationList(db, "follows", "follower_id", "followee_id", user.id),
      followers: await relationList(db, "follows", "followee_id", "follower_id", user.id),
    },
    blocks: await relationList(db, "blocks", "blocker_id", "blocked_id", user.id),
    mutes: await relationList(db, "mutes", "muter_id", "muted_id", user.id),
    stories: stories.map((s) => ({
      id: s.cuid,
      mediaUrl: s.media_url,
      kind: s.media_kind,
      caption: s.caption,
      createdAt: toIso(s.created_at),
    })),
    sessions: sessions.map((s) => ({
      id: s.cuid,
      userAgent: s.user_agent,
      ip: s.ip,
      createdAt: toIso(s.created_at),
      lastSeenAt: toIso(s.last_seen_at),
      revokedAt: s.revoked_at === null ? null : toIso(s.revoked_at),
    })),
  };
  for (const [name, section] of app.services.get(sections)) {
    if (name in out || RESERVED.has(name)) continue;
    out[name] = await section(db, user);
  }
  return out;
}
