import { lazyScreen } from "../../lib/lazy-screen";
import { BotIcon } from "../../components/icon";
import type { Screen } from "../../lib/screen";

export const botScreens: Screen[] = [
  {
    path: "/dashboard/bots",
    access: "signed-in",
    component: lazyScreen(() => import("./my-bots").then((m) => m.MyBots)),
    nav: { label: "bots", order: 35, icon: BotIcon },
  },
];
