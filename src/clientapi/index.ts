import { Elysia } from "elysia";
import type { App } from "../app";
import { authRoutes } from "./auth/routes";
import { postRoutes } from "./posts/routes";
import { searchRoutes } from "./search/routes";
import { uploadRoutes } from "./uploads/routes";
import { peopleRoutes } from "./people/routes";
import { notificationRoutes } from "./notifications/routes";
import { accountRoutes } from "./account/routes";
import { storyRoutes } from "./stories/routes";
import { chatsRoutes } from "./chats/routes";
import { botRoutes } from "./bots/routes";
import { starsRoutes } from "./stars/routes";
import { adminRoutes } from "./admin";

/** Every Client API resource, mounted under /api. One line per resource plugin. */
export function clientApiRoutes(app: App) {
  return new Elysia({ name: "client-api", prefix: "/api" }).use(authRoutes(app))
    .use(uploadRoutes(app))
    .use(peopleRoutes(app))
    .use(postRoutes(app))
    .use(searchRoutes(app))
    .use(notificationRoutes(app))
    .use(accountRoutes(app))
    .use(storyRoutes(app))
    .use(botRoutes(app))
    .use(starsRoutes(app))
    .use(chatsRoutes(app))
    .use(adminRoutes(app));
}
