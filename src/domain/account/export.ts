import type { App } from "../../app";
import { serializeAccount } from "../../clientapi/serializers/account";
import { toIso } from "../../lib/clock";
import { listNotifications, presentNotifications } from "../notifications/service";
import { profileView } from "../profiles/service";
import { getSettings } from "../settings/service";
import type { UserRow } from "../users/table";

/**
 * One section of a person's data export. It must return only that person's own data (and
 * what anyone may see of others: usernames), never another person's private data.
 */
export type ExportSection = (app: App, user: UserRow) => Promise<unknown>;

const sections = new Map<string, ExportSection>();

/**
 * Adds a section to `GET /api/account/export` (posts, messages…). Features call it from
 * installFeatureHooks; registering the same name again replaces it.
 */
export function registerExportSection(name: string, section: ExportSection): void {
  sections.set(name, section);
}

/** Accounts on the other side of USER's follows, blocks or mutes, with the time. */
async function relationList(app: App, table: "follows" | "blocks" | "mutes", mine: string, other: string, userId: number) {
  const rows = await (app.db as any)
    .selectFrom(table)
    .innerJoin("users", "users.id", `${table}.${other}`)
    .select(["users.username as username", `${table}.created_at as since`])
    .where(`${table}.${mine}`, "=", userId)
    .where("users.deleted_at", "is", null)
    .orderBy(`${table}.created_at`, "asc")
    .execute();
  return (rows as Array<{ username: string; since: number }>).map((r) => ({ username: r.username, since: toIso(r.since) }));
}

/** Everything about USER the service keeps, as one JSON object. */
export async function exportAccount(app: App, user: UserRow): Promise<Record<string, unknown>> {
  const db = app.db;
  const notifications = [];
  let cursor = null;
  // bounded walk over the person's notifications, oldest pages last
  for (let i = 0; i < 1000; i++) {
    const page = await listNotifications(db, user.id, { cursor, limit: 100, unreadOnly: false });
    notifications.push(...(await presentNotifications(db, page.items)));
    if (!page.nextCursor) break;
    cursor = { t: page.items[page.items.length - 1]!.created_at, id: page.items[page.items.length - 1]!.id };
  }
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
    exportedAt: toIso(app.clock.now()),
    account: serializeAccount(user),
    profile: await profileView(db, user.id, user),
    settings: await getSettings(db, user.id),
    follows: {
      following: await relationList(app, "follows", "follower_id", "followee_id", user.id),
      followers: await relationList(app, "follows", "followee_id", "follower_id", user.id),
    },
    blocks: await relationList(app, "blocks", "blocker_id", "blocked_id", user.id),
    mutes: await relationList(app, "mutes", "muter_id", "muted_id", user.id),
    notifications,
    stories: stories.map((s) => ({ id: s.cuid, mediaUrl: s.media_url, kind: s.media_kind, caption: s.caption, createdAt: toIso(s.created_at) })),
    sessions: sessions.map((s) => ({
      id: s.cuid,
      userAgent: s.user_agent,
      ip: s.ip,
      createdAt: toIso(s.created_at),
      lastSeenAt: toIso(s.last_seen_at),
      revokedAt: s.revoked_at === null ? null : toIso(s.revoked_at),
    })),
  };
  for (const [name, section] of sections) {
    if (name in out) continue;
    out[name] = await section(app, user);
  }
  return out;
}
