import type { Db } from "../../db";
import { AppError } from "../../lib/errors";
import { newCuid } from "../../lib/ids";
import type { Cursor } from "../../lib/paging";
import { newestFirstPage } from "../posts/keyset";
import type { UserRow } from "../users/table";
import type { AdminAuditRow, AuditTargetType } from "./table";

export interface AdminAction {
  action: string;
  target: { type: AuditTargetType; id: string; label: string };
  details?: Record<string, unknown>;
}

type Actor = Pick<UserRow, "id" | "username">;

/** Appends one entry to the admin audit log; ACTOR is the administrator who acted. */
export async function recordAdminAction(db: Db, now: number, actor: Actor, entry: AdminAction): Promise<AdminAuditRow> {
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

/**
 * Runs ACTION under its audit entries, written first: an administrator's change never happens
 * unlogged, even if the process dies half-way. Afterwards OUTCOME (the first entry's final
 * target and details: counts, the id of what was made) completes the entry. A change the domain
 * refuses (an AppError: bad input, a name taken) changed nothing, so its entries are withdrawn;
 * any other failure leaves them marked `failed: true`, since part of the change may have happened.
 */
export async function audited<R>(
  db: Db,
  now: number,
  actor: Actor,
  entries: AdminAction[],
  action: () => Promise<R>,
  outcome?: (result: R) => Partial<AdminAction>,
): Promise<R> {
  const rows: AdminAuditRow[] = [];
  for (const entry of entries) rows.push(await recordAdminAction(db, now, actor, entry));
  const ids = rows.map((r) => r.id);
  let result: R;
  try {
    result = await action();
  } catch (err) {
    if (err instanceof AppError && err.status < 500)
      await db.deleteFrom("admin_audit").where("id", "in", ids).execute();
    else for (const [i, entry] of entries.entries()) await setDetails(db, ids[i]!, { ...entry.details, failed: true });
    throw err;
  }
  const done = outcome?.(result);
  if (done) {
    const first = entries[0]!;
    const target = done.target ?? first.target;
    await db
      .updateTable("admin_audit")
      .set({
        target_id: target.id,
        target_label: target.label,
        details: JSON.stringify({ ...first.details, ...done.details }),
      })
      .where("id", "=", ids[0]!)
      .execute();
  }
  return result;
}

const setDetails = (db: Db, id: number, details: Record<string, unknown>) =>
  db
    .updateTable("admin_audit")
    .set({ details: JSON.stringify(details) })
    .where("id", "=", id)
    .execute();

/** One page of the audit log, newest first. */
export const auditPage = (db: Db, page: { cursor: Cursor | null; limit: number }) =>
  newestFirstPage(db.selectFrom("admin_audit").selectAll(), page);
