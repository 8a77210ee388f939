import type { JSX } from "preact";
import { useRoute } from "preact-iso";
import { Page } from "../../components/page";
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

const SECTIONS: Array<{ slug: string; label: string; component: () => JSX.Element; badge?: () => JSX.Element | null }> =
  [
    { slug: "", label: "Status", component: Status },
    { slug: "reports", label: "Reports", component: Reports, badge: OpenReportsBadge },
    { slug: "accounts", label: "Accounts", component: Accounts },
    { slug: "content", label: "Content", component: Content },
    { slug: "bots", label: "Bots", component: Bots },
    { slug: "settings", label: "Settings", component: Settings },
    { slug: "invites", label: "Invites", component: Invites },
    { slug: "maintenance", label: "Backups", component: Maintenance },
    { slug: "audit", label: "Audit log", component: AuditLog },
  ];

/** The admin area: one section at a time, chosen by /admin/<section>. */
export function Admin() {
  const { params } = useRoute();
  const current = SECTIONS.find((s) => s.slug === (params.section ?? "")) ?? null;
  const Section = current?.component;
  return (
    <Page title={current ? `Admin: ${current.label}` : "Admin"} heading="Administration" wide>
      <nav aria-label="Administration" class="admin-nav">
        <ul>
          {SECTIONS.map((s) => {
            const href = s.slug ? `/admin/${s.slug}` : "/admin";
            return (
              <li key={s.slug}>
                <a href={href} aria-current={s === current ? "page" : undefined}>
                  {s.label}
                  {s.badge && <s.badge />}
                </a>
              </li>
            );
          })}
        </ul>
      </nav>
      {Section ? <Section /> : <p class="card">There is no such section of the admin area.</p>}
    </Page>
  );
}
