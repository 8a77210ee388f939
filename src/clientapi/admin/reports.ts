import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { resolveReport } from "../../domain/reports/resolve";
import { countOpenReports, reportGroupsPage } from "../../domain/reports/service";
import { ok } from "../../http/envelope";
import { doc } from "../docs";
import { PageQuery, pageRequest } from "../input";
import { Page, ReportAction, ReportGroup } from "../schemas";
import { serializeReportGroups } from "../reports/serialize";
import { adminContext } from "./guard";

const ListQuery = t.Object({
  status: t.Optional(t.Union([t.Literal("open"), t.Literal("resolved")])),
  ...PageQuery.properties,
});
const IdParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });
// minutes' range is checked by the domain, so its message names it
const ResolveBody = t.Object({
  action: ReportAction,
  minutes: t.Optional(t.Number({ description: "block-posting only: 1 to 5256000" })),
  note: t.Optional(t.String({ maxLength: 1000 })),
});

/**
 * /api/admin/reports: the moderation queue. Reports of one target come as one group; resolving
 * any of them resolves all of the target's open reports with one action (audited, reporters notified).
 */
export function adminReportRoutes(app: App) {
  return new Elysia({ name: "admin-reports" })
    .use(adminContext(app))
    .get(
      "/",
      async ({ query }) => {
        const page = await reportGroupsPage(app.db, query.status ?? "open", pageRequest(query));
        return ok({ groups: await serializeReportGroups(app, page.items), pageInfo: { nextCursor: page.nextCursor } });
      },
      {
        admin: true,
        query: ListQuery,
        detail: doc("Admin: reports by target, the newest reported first (?status=open, the default, or resolved)", {
          data: Page("groups", ReportGroup),
        }),
      },
    )
    .get("/count", async () => ok({ open: await countOpenReports(app.db) }), {
      admin: true,
      detail: doc("Admin: how many reports are open, and of how many targets", {
        data: t.Object({ open: t.Object({ reports: t.Integer(), targets: t.Integer() }) }),
      }),
    })
    .post(
      "/:id/resolve",
      async ({ admin, params, body }) => {
        const closed = await resolveReport(app, admin, params.id, body);
        const [group] = await serializeReportGroups(app, [{ reports: closed }]);
        return ok({ group: group!, resolved: closed.length });
      },
      {
        admin: true,
        params: IdParams,
        body: ResolveBody,
        detail: doc("Admin: resolve a report, and every open report of its target, with one action", {
          data: t.Object({ group: ReportGroup, resolved: t.Integer() }),
          errors: ["NOT_FOUND", "REPORT_RESOLVED"],
        }),
      },
    );
}
