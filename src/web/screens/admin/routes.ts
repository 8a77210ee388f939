import { lazyScreen } from "../../lib/lazy-screen";
import { ShieldIcon } from "../../components/icon";
import { loadAdminTexts } from "../../lib/i18n";
import type { Screen } from "../../lib/screen";
import { OpenReportsBadge } from "./open-reports";

// the admin area's texts come with its screens: everyone else's first screen does without them
const Admin = lazyScreen(() => Promise.all([import("./admin"), loadAdminTexts()]).then(([m]) => m.Admin));

/** The admin area: for accounts with the admin flag only (its link is hidden from everyone else). */
export const adminScreens: Screen[] = [
  {
    path: "/admin",
    access: "admin",
    component: Admin,
    nav: { label: "admin", order: 90, icon: ShieldIcon, badge: OpenReportsBadge },
  },
  { path: "/admin/:section", access: "admin", component: Admin },
];
