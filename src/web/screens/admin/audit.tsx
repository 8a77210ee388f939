import { useCallback } from "preact/hooks";
import { FormError } from "../../components/field";
import { Loading } from "../../components/page";
import { api } from "../../lib/api";
import { formatDateTime } from "../../lib/format";
import { t } from "../../lib/i18n";
import { usePagedList } from "../../lib/paged";
import type { AuditEntry, PageInfo } from "../../lib/types";

const detailText = (d: Record<string, unknown>) =>
  Object.entries(d)
    .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(", ");

/** Every admin action, newest first. */
export function AuditLog() {
  const load = useCallback(async (cursor: string | null) => {
    const r = await api.get<{ entries: AuditEntry[]; pageInfo: PageInfo }>("/admin/audit", { cursor, limit: 50 });
    return { items: r.entries, nextCursor: r.pageInfo.nextCursor };
  }, []);
  const list = usePagedList<AuditEntry>("audit", load);
  return (
    <section class="card" aria-labelledby="audit-heading">
      <h2 id="audit-heading">{t("admin.audit.heading")}</h2>
      {/* focusable, so a keyboard can scroll the table sideways on a narrow screen */}
      <div class="table-scroll" role="region" aria-label={t("admin.audit.entries")} tabIndex={0}>
        <table class="admin-table">
          <caption class="visually-hidden">{t("admin.audit.caption")}</caption>
          <thead>
            <tr>
              <th scope="col">{t("admin.audit.when")}</th>
              <th scope="col">{t("admin.audit.who")}</th>
              <th scope="col">{t("admin.audit.action")}</th>
              <th scope="col">{t("admin.audit.target")}</th>
              <th scope="col">{t("admin.audit.details")}</th>
            </tr>
          </thead>
          <tbody>
            {list.items.map((e) => (
              <tr key={e.id}>
                <td>{formatDateTime(e.createdAt)}</td>
                <td>@{e.actor.username}</td>
                <td>{e.action}</td>
                <td>{e.target.label}</td>
                <td>{detailText(e.details)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {!list.loading && list.done && list.items.length === 0 && <p class="empty">{t("admin.audit.empty")}</p>}
      <FormError message={list.error} />
      {list.loading && <Loading label={t("admin.audit.loading")} />}
      {!list.done && !list.loading && list.items.length > 0 && (
        <button type="button" onClick={list.more}>
          {t("admin.audit.more")}
        </button>
      )}
    </section>
  );
}
