import { lazyScreen } from "../../lib/lazy-screen";
import type { Screen } from "../../lib/screen";

/** What the instance is, for signed-in people and visitors alike. */
export const aboutScreens: Screen[] = [
  { path: "/about", access: "any", component: lazyScreen(() => import("./about").then((m) => m.About)) },
];
