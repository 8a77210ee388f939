import { lazyScreen } from "../../lib/lazy-screen";
import { MessageCircleIcon } from "../../components/icon";
import type { Screen } from "../../lib/screen";
import { UnreadChatsBadge } from "./unread";

const Messages = lazyScreen(() => import("./messages").then((m) => m.Messages));

export const messagesScreens: Screen[] = [
  {
    path: "/dashboard/messages",
    access: "signed-in",
    component: Messages,
    nav: { label: "messages", order: 5, icon: MessageCircleIcon, tab: 2, badge: UnreadChatsBadge },
  },
  { path: "/dashboard/messages/:cid", access: "signed-in", component: Messages },
];
