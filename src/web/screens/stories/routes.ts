import { lazy } from "preact-iso";
import { CirclePlayIcon } from "../../components/icon";
import type { Screen } from "../../lib/screen";

export const storyScreens: Screen[] = [
  {
    path: "/stories",
    access: "signed-in",
    component: lazy(() => import("./stories").then((m) => m.Stories)),
    nav: { label: "stories", order: 7, icon: CirclePlayIcon },
  },
  {
    path: "/stories/:username",
    access: "signed-in",
    component: lazy(() => import("./viewer").then((m) => m.StoryViewer)),
  },
];
