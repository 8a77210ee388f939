import type { Db } from "../../db";
import { newCuid } from "../../lib/ids";
import { pageOf, type Cursor } from "../../lib/paging";
import { beforeKey } from "../posts/keyset";
import type { UserRow } from "../users/table";
import type { AdminAuditRow, AuditTargetType } from "./table";

export interface AdminAction {
  action: string;
  target: { type: AuditTargetType; id: string; label: string };
  details?: Record<string, unknown>;
}

/** Appends one entry to the admin audit log; ACTOR is the administrator who acted. */
export async function recordAdminAction(db: Db, now: number, actor: Pick<UserRow, "id" | "username">, entry: AdminAction): Promise<AdminAuditRow> {
  return db
    .insertInto("admin_audit")
    .values({
      cuid: newCuid(),
      actor_id: actor.id,
      actor_username: actor.username,
      action: entry.action,
      target_type: entry.target.type,
      target_id: entry.target.id,
      target_label: entry.target.label,
      details: JSON.stringify(entry.details ?? {}),
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** One page of the audit log, newest first. */
export async function auditPage(db: Db, page: { cursor: Cursor | null; limit: number }) {
  let q = db.selectFrom("admin_audit").selectAll();
  if (page.cursor) q = q.where(beforeKey("created_at", "id", page.cursor));
  const rows = await q.orderBy("created_at", "desc").orderBy("id", "desc").limit(page.limit + 1).execute();
  return pageOf(rows, page.limit, (r) => ({ t: r.created_at, id: r.id }));
}
