import type { Command } from "commander";
import { resolveReport } from "../../src/domain/reports/resolve";
import { reportGroupsPage } from "../../src/domain/reports/service";
import { REPORT_ACTIONS, type ReportAction } from "../../src/domain/reports/table";
import { serializeReportGroups } from "../../src/clientapi/reports/serialize";
import { decodeCursor, parseLimit } from "../../src/lib/paging";
import { globals, withApp } from "../context";
import { CliError, emit } from "../output";

type Group = Awaited<ReturnType<typeof serializeReportGroups>>[number];

const oneLine = (text: string | null) => {
  const flat = (text ?? "").replace(/\s+/g, " ").trim();
  return flat.length > 70 ? `${flat.slice(0, 69)}…` : flat;
};

/** A group as one paragraph: the id to resolve it by, what was reported, why, and what was done. */
function describe(g: Group): string {
  const reasons = [...new Set(g.reports.map((r) => r.reason))].join(", ");
  const lines = [
    `${g.reports[0]!.id}  ${g.target.label}${g.target.present ? "" : " (gone)"}: ${g.reportCount} report${g.reportCount === 1 ? "" : "s"} (${reasons})`,
    `  "${oneLine(g.target.text)}"`,
  ];
  for (const r of g.reports) if (r.comment) lines.push(`  @${r.reporter.username}: ${oneLine(r.comment)}`);
  if (g.resolution) lines.push(`  resolved by @${g.resolution.resolver.username}: ${g.resolution.action}`);
  return lines.join("\n");
}

/** `socialctl reports list` and `reports resolve`: the moderation queue of the admin area. */
export function registerReports(program: Command) {
  const reports = program.command("reports").description("the moderation queue: people's reports, by target");

  reports
    .command("list")
    .description("reports by target, the newest reported first (resolve one by the id shown first)")
    .option("--status <status>", "open or resolved", "open")
    .option("--limit <n>", "targets per page, 1 to 100", "20")
    .option("--cursor <c>", "nextCursor of the previous page")
    .action(async (f: { status: string; limit: string; cursor?: string }, cmd: Command) => {
      const opts = globals(cmd);
      if (f.status !== "open" && f.status !== "resolved") throw new CliError("--status must be open or resolved");
      const status = f.status;
      const page = { cursor: decodeCursor(f.cursor), limit: parseLimit(f.limit) };
      const { groups, nextCursor } = await withApp(opts, async (app) => {
        const found = await reportGroupsPage(app.db, status, page);
        return { groups: await serializeReportGroups(app, found.items), nextCursor: found.nextCursor };
      });
      emit(opts, { groups, nextCursor }, () =>
        groups.length === 0
          ? `No ${status} reports.`
          : groups.map(describe).join("\n\n") + (nextCursor ? `\n\nMore: --cursor ${nextCursor}` : ""),
      );
    });

  reports
    .command("resolve <id>")
    .description("resolve a report, and every open report of its target, with one action (audited; reporters notified)")
    .requiredOption("--action <action>", REPORT_ACTIONS.join(", "))
    .option("--minutes <n>", "block-posting: for how long")
    .option("--note <text>", "why, for administrators (the audit log, the queue)")
    .action(async (id: string, f: { action: string; minutes?: string; note?: string }, cmd: Command) => {
      const opts = globals(cmd);
      if (!(REPORT_ACTIONS as readonly string[]).includes(f.action))
        throw new CliError(`--action must be one of ${REPORT_ACTIONS.join(", ")}`);
      const minutes = f.minutes === undefined ? undefined : Number(f.minutes);
      const { group, resolved } = await withApp(opts, async (app) => {
        // from the console: the instance's own account acts, and is named in the audit log
        const closed = await resolveReport(app, null, id, {
          action: f.action as ReportAction,
          minutes,
          note: f.note,
        });
        const [group] = await serializeReportGroups(app, [{ reports: closed }]);
        return { group: group!, resolved: closed.length };
      });
      emit(
        opts,
        { group, resolved },
        `Resolved ${resolved} report${resolved === 1 ? "" : "s"} of ${group.target.label}: ${f.action}`,
      );
    });
}
