import { lazy } from "preact-iso";
import type { Screen } from "../../lib/screen";

export const starScreens: Screen[] = [
  {
    path: "/stars",
    access: "signed-in",
    component: lazy(() => import("./stars").then((m) => m.Stars)),
    nav: { label: "Stars", order: 30 },
  },
];
