import { h } from "preact";
import { lazyScreen } from "../../lib/lazy-screen";
import { BookmarkIcon, HomeIcon } from "../../components/icon";
import type { Screen } from "../../lib/screen";
import { signedIn } from "../../lib/session";
import { SignIn } from "../auth/sign-in";

const Feed = lazyScreen(() => import("./feed").then((m) => m.Feed));

/** "/" is the feed when signed in and the sign-in form when not (product spec). */
function Home() {
  return signedIn.value ? h(Feed, {}) : h(SignIn, {});
}

export const feedScreens: Screen[] = [
  { path: "/", access: "any", component: Home, nav: { label: "feed", order: 0, icon: HomeIcon, tab: 1 } },
  {
    path: "/posts/:id",
    access: "signed-in",
    component: lazyScreen(() => import("./post-view").then((m) => m.PostView)),
  },
  { path: "/tags/:tag", access: "signed-in", component: lazyScreen(() => import("./hashtag").then((m) => m.Hashtag)) },
  {
    path: "/bookmarks",
    access: "signed-in",
    component: lazyScreen(() => import("./bookmarks").then((m) => m.Bookmarks)),
    nav: { label: "bookmarks", order: 15, icon: BookmarkIcon },
  },
];
