import type { JSX } from "preact";
import { useRoute } from "preact-iso";
import { Page } from "../../components/page";
import { t } from "../../lib/i18n";
import { Accounts } from "./accounts";
import { AuditLog } from "./audit";
import { Bots } from "./bots";
import { Content } from "./content";
import { Invites } from "./invites";
import { Maintenance } from "./maintenance";
import { OpenReportsBadge } from "./open-reports";
import { Reports } from "./reports";
import { Settings } from "./settings";
import { Status } from "./status";

const SECTIONS: Array<{
  slug: string;
  label: () => string;
  component: () => JSX.Element;
  badge?: () => JSX.Element | null;
}> = [
  { slug: "", label: () => t("admin.nav.status"), component: Status },
  { slug: "reports", label: () => t("admin.nav.reports"), component: Reports, badge: OpenReportsBadge },
  { slug: "accounts", label: () => t("admin.nav.accounts"), component: Accounts },
  { slug: "content", label: () => t("admin.nav.content"), component: Content },
  { slug: "bots", label: () => t("admin.nav.bots"), component: Bots },
  { slug: "settings", label: () => t("admin.nav.settings"), component: Settings },
  { slug: "invites", label: () => t("admin.nav.invites"), component: Invites },
  { slug: "maintenance", label: () => t("admin.nav.backups"), component: Maintenance },
  { slug: "audit", label: () => t("admin.nav.audit"), component: AuditLog },
];

/** The admin area: one section at a time, chosen by /admin/<section>. */
export function Admin() {
  const { params } = useRoute();
  const current = SECTIONS.find((s) => s.slug === (params.section ?? "")) ?? null;
  const Section = current?.component;
  return (
    <Page
      title={current ? t("admin.nav.sectionTitle", { section: current.label() }) : t("admin.nav.title")}
      heading={t("admin.nav.heading")}
      wide
    >
      <nav aria-label={t("admin.nav.heading")} class="admin-nav">
        <ul>
          {SECTIONS.map((s) => {
            const href = s.slug ? `/admin/${s.slug}` : "/admin";
            return (
              <li key={s.slug}>
                <a href={href} aria-current={s === current ? "page" : undefined}>
                  {s.label()}
                  {s.badge && <s.badge />}
                </a>
              </li>
            );
          })}
        </ul>
      </nav>
      {Section ? <Section /> : <p class="card">{t("admin.nav.noSection")}</p>}
    </Page>
  );
}
