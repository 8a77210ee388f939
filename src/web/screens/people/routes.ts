import { lazyScreen } from "../../lib/lazy-screen";
import { UserIcon } from "../../components/icon";
import type { Screen } from "../../lib/screen";

/** People: profiles, their followers and following, editing my own profile. */
export const peopleScreens: Screen[] = [
  {
    path: "/users/:username",
    access: "signed-in",
    component: lazyScreen(() => import("./profile").then((m) => m.ProfileScreen)),
    nav: { label: "profile", order: 10, icon: UserIcon, tab: 4, href: (me) => `/users/${me.username}` },
  },
  {
    path: "/users/:username/media",
    access: "signed-in",
    component: lazyScreen(() => import("./profile").then((m) => m.ProfileMediaScreen)),
  },
  {
    path: "/users/:username/followers",
    access: "signed-in",
    component: lazyScreen(() => import("./people-list").then((m) => m.Followers)),
  },
  {
    path: "/users/:username/following",
    access: "signed-in",
    component: lazyScreen(() => import("./people-list").then((m) => m.Following)),
  },
  {
    path: "/profile/edit",
    access: "signed-in",
    component: lazyScreen(() => import("./edit-profile").then((m) => m.EditProfile)),
  },
];
