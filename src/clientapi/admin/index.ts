import { Elysia } from "elysia";
import type { App } from "../../app";
import { adminAccountRoutes } from "./accounts";
import { adminAuditRoutes } from "./audit";
import { adminBotRoutes } from "./bots";
import { adminContentRoutes } from "./content";
import { adminSettingsRoutes } from "./settings";
import { adminStatusRoutes } from "./status";

/**
 * The admin API under /api/admin, one file per prefix. Every route is for accounts with the
 * admin flag (401 signed out, 403 FORBIDDEN otherwise); every change is written to the audit log.
 */
export function adminRoutes(app: App) {
  return new Elysia({ name: "client-admin", prefix: "/admin" })
    .use(adminAccountRoutes(app))
    .use(adminContentRoutes(app))
    .use(adminBotRoutes(app))
    .use(adminSettingsRoutes(app))
    .use(adminStatusRoutes(app))
    .use(adminAuditRoutes(app));
}
