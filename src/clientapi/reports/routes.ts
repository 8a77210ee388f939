import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { fileReport, reportsOfReporter } from "../../domain/reports/service";
import { requestContext } from "../../http/context";
import { ok } from "../../http/envelope";
import { doc } from "../docs";
import { PageQuery, pageRequest } from "../input";
import { Page, Report, ReportReason, ReportTargetType } from "../schemas";
import { serializeOwnReports } from "./serialize";

const ReportBody = t.Object({
  target: t.Object({
    type: ReportTargetType,
    id: t.String({
      minLength: 1,
      maxLength: 64,
      description: "a post's, comment's, story's or message's id; a username for a user or a bot",
    }),
  }),
  reason: ReportReason,
  comment: t.Optional(t.String({ maxLength: 1000 })),
});

/** /api/social/reports: report what one can see to the instance's administrators; one's own reports. */
export function reportRoutes(app: App) {
  return new Elysia({ name: "client-reports" })
    .use(requestContext(app))
    .post(
      "/",
      async ({ user, body }) => {
        const report = await fileReport(app, user, body);
        const [shown] = await serializeOwnReports(app, [report]);
        return ok({ report: shown! });
      },
      {
        auth: true,
        body: ReportBody,
        detail: doc(
          "Report a post, comment, story, message, user or bot (the same open report again answers the first)",
          {
            data: t.Object({ report: Report }),
            errors: ["NOT_FOUND"],
            description:
              "A target the reporter cannot see is NOT_FOUND; one's own content, account or bot is a VALIDATION_ERROR on `target`. New reports per account per hour: `limits.reportsPerHour`.",
          },
        ),
      },
    )
    .get(
      "/",
      async ({ user, query }) => {
        const page = await reportsOfReporter(app.db, user.id, pageRequest(query));
        return ok({ reports: await serializeOwnReports(app, page.items), pageInfo: { nextCursor: page.nextCursor } });
      },
      {
        auth: true,
        query: PageQuery,
        detail: doc("My reports and their status, newest first", { data: Page("reports", Report) }),
      },
    );
}
