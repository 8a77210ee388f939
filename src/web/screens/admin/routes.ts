import { lazy } from "preact-iso";
import { ShieldIcon } from "../../components/icon";
import type { Screen } from "../../lib/screen";
import { OpenReportsBadge } from "./open-reports";

const Admin = lazy(() => import("./admin").then((m) => m.Admin));

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
