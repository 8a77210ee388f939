import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { botCommands, createBot, findBotByUsername, listBotsOfOwner, reissueToken, requireOwnedBot, updateBotSettings, type BotWithUser } from "../../domain/bots/service";
import { pressButton, webAppLaunchUrl } from "../../botapi/callbacks";
import { ok } from "../../http/envelope";
import { requestContext } from "../../http/context";
import { forbidden, notFound } from "../../lib/errors";
import { toIso } from "../../lib/clock";
import { serializePublicUser } from "../serializers/account";
import { libraryApiRoots } from "../../domain/bots/library-roots";

const CreateBody = t.Object({
  username: t.String({ minLength: 1, maxLength: 64 }),
  name: t.String({ minLength: 1, maxLength: 64 }),
});
const PatchBody = t.Object({
  enabled: t.Optional(t.Boolean()),
  privacy: t.Optional(t.Union([t.Literal("all"), t.Literal("commands")])),
  description: t.Optional(t.String({ maxLength: 512 })),
  shortDescription: t.Optional(t.String({ maxLength: 120 })),
});
const PressBody = t.Object({ data: t.String({ minLength: 1, maxLength: 64 }) });
const WebAppBody = t.Object({ url: t.String({ minLength: 1, maxLength: 512 }) });

/** A bot as its owner sees it in "My bots". */
function serializeOwnedBot(app: App, { bot, user }: BotWithUser) {
  return {
    id: bot.cuid,
    username: user.username,
    name: user.display_name,
    enabled: bot.disabled_at === null,
    blocked: bot.blocked_at !== null,
    privacy: bot.privacy,
    description: bot.description,
    shortDescription: bot.short_description,
    commands: botCommands(bot),
    webhookUrl: bot.webhook_url,
    startLink: `${app.config.baseUrl}/dashboard/messages?user=${encodeURIComponent(user.username)}`,
    // what to give each bot library as its server setting (apiRoot, and per library)
    ...libraryApiRoots(app.config.baseUrl),
    createdAt: toIso(bot.created_at),
  };
}

/**
 * Bots for their owners (/api/bots), a bot's public card (/api/social/bots/{username}) and the
 * person's side of bot buttons (/api/social/messages/{cid}/{mid}/callback and /web-app).
 */
export function botRoutes(app: App) {
  return new Elysia({ name: "client-bots" })
    .use(requestContext(app))
    .get("/bots", async ({ user }) => ok({ bots: (await listBotsOfOwner(app.db, user.id)).map((b) => serializeOwnedBot(app, b)) }), { auth: true })
    .post(
      "/bots",
      async ({ user, body }) => {
        if (user.is_bot) throw forbidden("Bots cannot own bots");
        const made = await createBot(app, { ownerId: user.id, username: body.username, name: body.name });
        // the token is shown this once: only its hash is kept
        return ok({ bot: serializeOwnedBot(app, made), token: made.token });
      },
      { auth: true, body: CreateBody },
    )
    .post(
      "/bots/:username/token",
      async ({ user, params }) => {
        const found = await requireOwnedBot(app.db, user.id, params.username);
        const token = await reissueToken(app, found.bot.id);
        return ok({ bot: serializeOwnedBot(app, found), token });
      },
      { auth: true },
    )
    .patch(
      "/bots/:username",
      async ({ user, params, body }) => {
        const found = await requireOwnedBot(app.db, user.id, params.username);
        const bot = await updateBotSettings(app, found.bot.id, body);
        return ok({ bot: serializeOwnedBot(app, { bot, user: found.user }) });
      },
      { auth: true, body: PatchBody },
    )
    .get(
      "/social/bots/:username",
      async ({ params }) => {
        const found = await findBotByUsername(app.db, params.username);
        if (!found || found.bot.blocked_at) throw notFound("Bot not found");
        return ok({
          bot: {
            ...serializePublicUser(found.user),
            description: found.bot.description,
            shortDescription: found.bot.short_description,
            commands: botCommands(found.bot),
            enabled: found.bot.disabled_at === null,
          },
        });
      },
      { auth: true },
    )
    .post(
      "/social/messages/:cid/:mid/callback",
      async ({ user, params, body }) => ok({ answer: await pressButton(app, user, params.cid, params.mid, body.data) }),
      { auth: true, body: PressBody },
    )
    .post(
      "/social/messages/:cid/:mid/web-app",
      async ({ user, params, body }) => ok({ url: await webAppLaunchUrl(app, user, params.cid, params.mid, body.url) }),
      { auth: true, body: WebAppBody },
    );
}
