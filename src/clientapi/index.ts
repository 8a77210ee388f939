import { Elysia, type AnyElysia } from "elysia";
import type { App } from "../app";

/** One prefix of the Client API (under /api) and the plugins (files) that serve it, in order. */
export interface ClientApiPrefix {
  prefix: string;
  /** loads the plugins' modules and builds them: run by the first request under the prefix, not at start */
  routes: (app: App) => Promise<AnyElysia[]>;
}

const served = (prefix: string, routes: ClientApiPrefix["routes"]): ClientApiPrefix => ({ prefix, routes });

/**
 * The Client API's route table: every URL prefix under /api and the plugin (file, by the import)
 * that serves it. A longer prefix is its own entry: /api/account/upload is served by
 * uploads/routes.ts, the rest of /api/account by account/routes.ts. Each prefix is built on the
 * first request under it (http/server.ts: lazySurface), so an instance holds only the parts of
 * the API its clients use; no route of one prefix lies under another's (http/lazy-surface.test.ts).
 */
export const CLIENT_API: readonly ClientApiPrefix[] = [
  served("/auth", async (app) => [(await import("./auth/routes")).authRoutes(app)]),
  served("/auth/sessions", async (app) => [(await import("./auth/sessions")).sessionRoutes(app)]),
  served("/auth/2fa", async (app) => [(await import("./auth/two-factor")).twoFactorRoutes(app)]),
  served("/auth/qr", async (app) => [(await import("./auth/qr")).qrRoutes(app)]),
  served("/auth/email", async (app) => [(await import("./auth/email")).emailRoutes(app)]),
  served("/auth/password", async (app) => [(await import("./auth/password")).passwordRoutes(app)]),
  served("/instance", async (app) => [(await import("./instance/routes")).instanceRoutes(app)]),
  served("/start", async (app) => [(await import("./start/routes")).startRoutes(app)]),
  served("/account", async (app) => [(await import("./account/routes")).accountRoutes(app)]),
  served("/account/upload", async (app) => [(await import("./uploads/routes")).uploadRoutes(app)]),
  served("/account/notification-settings", async (app) => [
    (await import("./push/routes")).notificationSettingsRoutes(app),
  ]),
  served("/push", async (app) => [(await import("./push/routes")).pushRoutes(app)]),
  served("/social/users", async (app) => [(await import("./people/routes")).peopleRoutes(app)]),
  served("/social/posts", async (app) => [(await import("./posts/routes")).postRoutes(app)]),
  served("/social/comments", async (app) => [(await import("./posts/comments")).commentRoutes(app)]),
  served("/social/feed", async (app) => [(await import("./posts/lists")).feedRoutes(app)]),
  served("/social/bookmarks", async (app) => [(await import("./posts/lists")).bookmarkRoutes(app)]),
  served("/social/hashtags", async (app) => [(await import("./posts/lists")).hashtagRoutes(app)]),
  served("/social/link-preview", async (app) => [(await import("./posts/link-preview")).linkPreviewRoutes(app)]),
  served("/social/search", async (app) => [(await import("./search/routes")).searchRoutes(app)]),
  served("/social/stories", async (app) => [(await import("./stories/routes")).storyRoutes(app)]),
  served("/social/reports", async (app) => [(await import("./reports/routes")).reportRoutes(app)]),
  served("/social/notifications", async (app) => [(await import("./notifications/routes")).notificationRoutes(app)]),
  // the unread routes before the chat routes: "/unread" is not a conversation id
  served("/social/messages", async (app) => [
    (await import("./chats/unread")).chatUnreadRoutes(app),
    (await import("./chats/messages")).chatMessageRoutes(app),
  ]),
  served("/social/groups", async (app) => [(await import("./chats/groups")).chatGroupRoutes(app)]),
  served("/social/invoice-links", async (app) => [(await import("./payments/routes")).invoiceLinkRoutes(app)]),
  served("/social/bots", async (app) => [(await import("./bots/routes")).botProfileRoutes(app)]),
  served("/bots", async (app) => [(await import("./bots/routes")).botRoutes(app)]),
  served("/stars", async (app) => [(await import("./stars/routes")).starsRoutes(app)]),
  served("/realtime", async (app) => [(await import("../realtime/routes")).realtimeRoutes(app)]),
  // only for accounts with the admin flag (401 signed out, 403 FORBIDDEN otherwise); every change is audited
  served("/admin/accounts", async (app) => [(await import("./admin/accounts")).adminAccountRoutes(app)]),
  served("/admin/content", async (app) => [(await import("./admin/content")).adminContentRoutes(app)]),
  served("/admin/bots", async (app) => [(await import("./admin/bots")).adminBotRoutes(app)]),
  served("/admin/settings", async (app) => [(await import("./admin/settings")).adminSettingsRoutes(app)]),
  served("/admin/status", async (app) => [(await import("./admin/status")).adminStatusRoutes(app)]),
  served("/admin/reports", async (app) => [(await import("./admin/reports")).adminReportRoutes(app)]),
  served("/admin/audit", async (app) => [(await import("./admin/audit")).adminAuditRoutes(app)]),
  served("/admin/invites", async (app) => [(await import("./admin/invites")).adminInviteRoutes(app)]),
  served("/admin/maintenance", async (app) => [(await import("./admin/maintenance")).adminMaintenanceRoutes(app)]),
  served("/admin/jobs", async (app) => [(await import("./admin/jobs")).adminJobRoutes(app)]),
];

/** The Client API's routes under ENTRY's prefix (below /api), as one plugin. */
export async function clientApiPart(app: App, entry: ClientApiPrefix) {
  let part = new Elysia({ prefix: entry.prefix });
  for (const routes of await entry.routes(app)) part = part.use(routes);
  return part;
}

/** The whole Client API under /api, every prefix built (the OpenAPI document, tests). */
export async function clientApiRoutes(app: App) {
  let api: AnyElysia = new Elysia({ name: "client-api", prefix: "/api" });
  for (const entry of CLIENT_API) api = api.use(await clientApiPart(app, entry));
  return api;
}
