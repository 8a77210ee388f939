import { lazy } from "preact-iso";
import type { Screen } from "../../lib/screen";

/** What the instance is, for signed-in people and visitors alike. */
export const aboutScreens: Screen[] = [
  { path: "/about", access: "any", component: lazy(() => import("./about").then((m) => m.About)) },
];
