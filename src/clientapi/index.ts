import { Elysia } from "elysia";
import type { App } from "../app";
import { authRoutes } from "./auth/routes";

/** Every Client API resource, mounted under /api. One line per resource plugin. */
export function clientApiRoutes(app: App) {
  return new Elysia({ name: "client-api", prefix: "/api" }).use(authRoutes(app));
}
