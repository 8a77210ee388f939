import { doc } from "../docs";
import { AuditEntry, Page } from "../schemas";
import { Elysia } from "elysia";
import type { App } from "../../app";
import { auditPage } from "../../domain/admin/audit";
import type { AdminAuditRow } from "../../domain/admin/table";
import { ok } from "../../http/envelope";
import { toIso } from "../../lib/clock";
import { PageQuery, pageRequest } from "../input";
import { adminContext } from "./guard";

function serializeAuditEntry(row: AdminAuditRow): typeof AuditEntry.static {
  return {
    id: row.cuid,
    actor: { username: row.actor_username },
    action: row.action,
    target: { type: row.target_type, id: row.target_id, label: row.target_label },
    details: JSON.parse(row.details) as Record<string, unknown>,
    createdAt: toIso(row.created_at),
  };
}

/** /api/admin/audit: the admin audit log, newest first, cursor-paged. */
export function adminAuditRoutes(app: App) {
  return new Elysia({ name: "admin-audit" }).use(adminContext(app)).get(
    "/",
    async ({ query }) => {
      const page = await auditPage(app.db, pageRequest(query));
      return ok({ entries: page.items.map(serializeAuditEntry), pageInfo: { nextCursor: page.nextCursor } });
    },
    {
      admin: true,
      query: PageQuery,
      detail: doc("Admin: the audit log of administrators' actions, newest first", {
        data: Page("entries", AuditEntry),
      }),
    },
  );
}
