import { lazyScreen } from "../../lib/lazy-screen";
import { BellIcon } from "../../components/icon";
import type { Screen } from "../../lib/screen";
import { UnreadBadge } from "./unread";

export const notificationScreens: Screen[] = [
  {
    path: "/notifications",
    access: "signed-in",
    component: lazyScreen(() => import("./notifications").then((m) => m.Notifications)),
    nav: { label: "notifications", order: 20, icon: BellIcon, tab: 3, badge: UnreadBadge },
  },
];
