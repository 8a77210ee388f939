import { Elysia, type AnyElysia } from "elysia";
import type { App } from "../app";
import { accountRoutes } from "./account/routes";
import { authRoutes } from "./auth/routes";
import { emailRoutes } from "./auth/email";
import { passwordRoutes } from "./auth/password";
import { qrRoutes } from "./auth/qr";
import { sessionRoutes } from "./auth/sessions";
import { twoFactorRoutes } from "./auth/two-factor";
import { botProfileRoutes, botRoutes } from "./bots/routes";
import { chatGroupRoutes } from "./chats/groups";
import { chatMessageRoutes } from "./chats/messages";
import { chatUnreadRoutes } from "./chats/unread";
import { notificationRoutes } from "./notifications/routes";
import { peopleRoutes } from "./people/routes";
import { commentRoutes } from "./posts/comments";
import { bookmarkRoutes, feedRoutes, hashtagRoutes } from "./posts/lists";
import { postRoutes } from "./posts/routes";
import { searchRoutes } from "./search/routes";
import { starsRoutes } from "./stars/routes";
import { storyRoutes } from "./stories/routes";
import { uploadRoutes } from "./uploads/routes";
import { adminAccountRoutes } from "./admin/accounts";
import { adminAuditRoutes } from "./admin/audit";
import { adminBotRoutes } from "./admin/bots";
import { adminContentRoutes } from "./admin/content";
import { adminMaintenanceRoutes } from "./admin/maintenance";
import { adminSettingsRoutes } from "./admin/settings";
import { adminStatusRoutes } from "./admin/status";
import { realtimeRoutes } from "../realtime/routes";

/** Serves ROUTES (paths relative to PREFIX) under PREFIX. */
const at = <Routes extends AnyElysia>(prefix: string, routes: Routes) => new Elysia({ prefix }).use(routes);

/**
 * The Client API's route table: every URL prefix under /api and the one plugin (file, by the
 * imports above) that serves it. A longer prefix is its own entry: /api/account/upload is
 * served by uploads/routes.ts, the rest of /api/account by account/routes.ts.
 */
export function clientApiRoutes(app: App) {
  return (
    new Elysia({ name: "client-api", prefix: "/api" })
      .use(at("/auth", authRoutes(app)))
      .use(at("/auth/sessions", sessionRoutes(app)))
      .use(at("/auth/2fa", twoFactorRoutes(app)))
      .use(at("/auth/qr", qrRoutes(app)))
      .use(at("/auth/email", emailRoutes(app)))
      .use(at("/auth/password", passwordRoutes(app)))
      .use(at("/account", accountRoutes(app)))
      .use(at("/account/upload", uploadRoutes(app)))
      .use(at("/social/users", peopleRoutes(app)))
      .use(at("/social/posts", postRoutes(app)))
      .use(at("/social/comments", commentRoutes(app)))
      .use(at("/social/feed", feedRoutes(app)))
      .use(at("/social/bookmarks", bookmarkRoutes(app)))
      .use(at("/social/hashtags", hashtagRoutes(app)))
      .use(at("/social/search", searchRoutes(app)))
      .use(at("/social/stories", storyRoutes(app)))
      .use(at("/social/notifications", notificationRoutes(app)))
      // before the chat routes: "/unread" is not a conversation id
      .use(at("/social/messages", chatUnreadRoutes(app)))
      .use(at("/social/messages", chatMessageRoutes(app)))
      .use(at("/social/groups", chatGroupRoutes(app)))
      .use(at("/social/bots", botProfileRoutes(app)))
      .use(at("/bots", botRoutes(app)))
      .use(at("/stars", starsRoutes(app)))
      .use(at("/realtime", realtimeRoutes(app)))
      // only for accounts with the admin flag (401 signed out, 403 FORBIDDEN otherwise); every change is audited
      .use(at("/admin/accounts", adminAccountRoutes(app)))
      .use(at("/admin/content", adminContentRoutes(app)))
      .use(at("/admin/bots", adminBotRoutes(app)))
      .use(at("/admin/settings", adminSettingsRoutes(app)))
      .use(at("/admin/status", adminStatusRoutes(app)))
      .use(at("/admin/audit", adminAuditRoutes(app)))
      .use(at("/admin/maintenance", adminMaintenanceRoutes(app)))
  );
}
