import type { App } from "../../app";
import type { Db } from "../../db";
import { toIso } from "../../lib/clock";
import { registerExportSection } from "../account/export";
import type { UserRow } from "../users/table";

/** Hook listeners of the reports feature (installed for every App from wiring.ts). */
export function installReportHooks(app: App): void {
  registerExportSection(app, "reports", exportReports);
}

/** Data export: what the person reported, why, and what became of it (not the administrators' notes). */
async function exportReports(db: Db, user: UserRow) {
  const rows = await db
    .selectFrom("reports")
    .select([
      "cuid",
      "target_type",
      "target_id",
      "reason",
      "comment",
      "status",
      "resolution_action",
      "resolved_at",
      "created_at",
    ])
    .where("reporter_id", "=", user.id)
    .orderBy("id")
    .execute();
  return rows.map((r) => ({
    id: r.cuid,
    target: { type: r.target_type, id: r.target_id },
    reason: r.reason,
    comment: r.comment,
    status: r.status,
    resolution: r.resolution_action,
    resolvedAt: r.resolved_at === null ? null : toIso(r.resolved_at),
    createdAt: toIso(r.created_at),
  }));
}
