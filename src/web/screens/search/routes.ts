import { lazyScreen } from "../../lib/lazy-screen";
import { SearchIcon } from "../../components/icon";
import type { Screen } from "../../lib/screen";

export const searchScreens: Screen[] = [
  {
    path: "/search",
    access: "signed-in",
    component: lazyScreen(() => import("./search").then((m) => m.Search)),
    nav: { label: "search", order: 10, icon: SearchIcon },
  },
];
