import { lazyScreen } from "../../lib/lazy-screen";
import { CirclePlayIcon } from "../../components/icon";
import type { Screen } from "../../lib/screen";

export const storyScreens: Screen[] = [
  {
    path: "/stories",
    access: "signed-in",
    component: lazyScreen(() => import("./stories").then((m) => m.Stories)),
    nav: { label: "stories", order: 7, icon: CirclePlayIcon },
  },
  {
    path: "/stories/:username",
    access: "signed-in",
    component: lazyScreen(() => import("./viewer").then((m) => m.StoryViewer)),
  },
];
