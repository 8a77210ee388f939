import { useCallback } from "preact/hooks";
import { t } from "../../lib/i18n";
import { ListFooter } from "../../components/list-footer";
import { api } from "../../lib/api";
import { formatDateTime } from "../../lib/format";
import { usePagedList } from "../../lib/paged";
import { OUTCOME, REASON_LABEL } from "../../lib/reports";
import type { OwnReport, OwnReportPage } from "../../lib/types";
import { Section } from "./section";

/** The person's own reports and what became of them. */
export function MyReports() {
  const load = useCallback(async (cursor: string | null) => {
    const r = await api.get<OwnReportPage>("/social/reports", { cursor, limit: 20 });
    return { items: r.reports, nextCursor: r.pageInfo.nextCursor };
  }, []);
  const list = usePagedList<OwnReport>("my-reports", load);
  return (
    <Section title={t("settings.reports.title")} intro={t("settings.reports.intro")}>
      {list.items.length > 0 && (
        <ul class="my-reports">
          {list.items.map((r) => (
            <li key={r.id}>
              <strong>{r.target.label}</strong>
              <span>
                {t("settings.reports.reported", { reason: REASON_LABEL[r.reason], date: formatDateTime(r.createdAt) })}
              </span>
              <span class={r.status === "open" ? "report-status open" : "report-status"}>
                {r.resolution ? OUTCOME[r.resolution.action] : t("settings.reports.waiting")}
              </span>
            </li>
          ))}
        </ul>
      )}
      <ListFooter list={list} noun={t("settings.reports.noun")} empty={t("settings.reports.empty")} />
    </Section>
  );
}
