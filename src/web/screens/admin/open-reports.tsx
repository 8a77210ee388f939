import { signal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { CountBadge } from "../../components/count-badge";
import { api } from "../../lib/api";
import { t } from "../../lib/i18n";

/** How many reports are open: the badges in the main and the admin navigation share it. */
export const openReportCount = signal(0);

/** Reads the count again (on mount, every minute, and after an administrator resolved reports). */
export async function refreshOpenReports(): Promise<void> {
  try {
    const r = await api.get<{ open: { reports: number; targets: number } }>("/admin/reports/count");
    openReportCount.value = r.open.reports;
  } catch {
    // the badge is a hint; the Reports section shows errors where they happen
  }
}

const REFRESH_MS = 60_000;
// the main and the admin navigation both show the badge: one timer for all of them
let shown = 0;
let timer: ReturnType<typeof setInterval> | undefined;

/** The number of open reports beside an admin link ("Reports 3"), read as "3 open reports". */
export function OpenReportsBadge() {
  useEffect(() => {
    if (shown++ === 0) {
      void refreshOpenReports();
      timer = setInterval(() => void refreshOpenReports(), REFRESH_MS);
    }
    return () => {
      if (--shown === 0) clearInterval(timer);
    };
  }, []);
  return <CountBadge count={openReportCount.value} noun={t("nav.openReports")} />;
}
