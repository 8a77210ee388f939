import { lazyScreen } from "../../lib/lazy-screen";
import { SettingsIcon } from "../../components/icon";
import type { Screen } from "../../lib/screen";

export const settingsScreens: Screen[] = [
  {
    path: "/settings",
    access: "signed-in",
    component: lazyScreen(() => import("./settings").then((m) => m.Settings)),
    nav: { label: "settings", order: 40, icon: SettingsIcon },
  },
];
