import { doc } from "../docs";
import { BotCard, BotIncome as Income, BotLogEntry, OwnedBot } from "../schemas";
import { Elysia, t } from "elysia";
import type { App } from "../../app";
import {
  botCommands,
  createBot,
  findBotByUsername,
  listBotsOfOwner,
  reissueToken,
  requireOwnedBot,
  updateBotSettings,
  type BotWithUser,
} from "../../domain/bots/service";
import { ok } from "../../http/envelope";
import { requestContext } from "../../http/context";
import { fieldError, forbidden, notFound } from "../../lib/errors";
import { parseBotCommands } from "../../domain/bots/commands";
import { toIso } from "../../lib/clock";
import { botIncome, withdrawIncome } from "../../domain/payments/income";
import { serializePublicUser } from "../serializers/account";
import { libraryApiRoots } from "../../lib/bot-libraries";
import { botProfile, commandsShownTo, menuButtonFor } from "../../domain/bots/profile";
import { botLogOf } from "../../domain/bots/log";
import { findPrivateChat } from "../../domain/chats/access";
import { afterFrom, botLogResponse, LogQuery } from "../../ops/bot-log";

const BotLog = t.Object({
  entries: t.Array(BotLogEntry),
  limit: t.Integer({ description: "entries kept per bot" }),
});

const CreateBody = t.Object({
  username: t.String({ minLength: 1, maxLength: 64 }),
  name: t.String({ minLength: 1, maxLength: 64 }),
});
const WithdrawBody = t.Object({ amount: t.Optional(t.Integer({ minimum: 1, maximum: 1_000_000_000_000 })) });
const PatchBody = t.Object({
  enabled: t.Optional(t.Boolean()),
  privacy: t.Optional(t.Union([t.Literal("all"), t.Literal("commands")])),
  description: t.Optional(t.String({ maxLength: 512 })),
  shortDescription: t.Optional(t.String({ maxLength: 120 })),
  commands: t.Optional(
    t.Array(t.Object({ command: t.String(), description: t.String() }), {
      description:
        "the list everyone sees (setMyCommands without scope or language): at most 100; command 1-32 of a-z, 0-9, _; description 1-256 characters",
    }),
  ),
});

type Income = Awaited<ReturnType<typeof botIncome>>;
const serializeIncome = (income: Income) => ({
  held: income.held,
  withdrawable: income.withdrawable,
  nextReleaseAt: income.nextReleaseAt === null ? null : toIso(income.nextReleaseAt),
  recentPayments: income.recentPayments.map((p) => ({
    id: p.cuid,
    chargeId: p.charge_id,
    amount: p.amount,
    status: p.status,
    payer: { username: p.payerUsername },
    holdUntil: toIso(p.hold_until),
    released: p.released_at !== null,
    createdAt: toIso(p.created_at),
  })),
});

/** A bot as its owner sees it in "My bots". */
function serializeOwnedBot(app: App, { bot, user }: BotWithUser): typeof OwnedBot.static {
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

/** /api/bots: bots for their owners (create, settings, token) and their income from payments. */
export function botRoutes(app: App) {
  /** The developer log of an owned bot (src/ops/bot-log.ts): JSON, or live as SSE. */
  const ownerLog = async (
    ownerId: number,
    username: string,
    query: { after?: number },
    request: Request,
    follow: boolean,
  ) => {
    const found = await requireOwnedBot(app.db, ownerId, username);
    return botLogResponse(botLogOf(app), found.bot.id, {
      after: afterFrom(query, request),
      follow,
      signal: request.signal,
    });
  };
  return (
    new Elysia({ name: "client-bots" })
      .use(requestContext(app))
      .get(
        "",
        async ({ user }) =>
          ok({ bots: (await listBotsOfOwner(app.db, user.id)).map((b) => serializeOwnedBot(app, b)) }),
        { auth: true, detail: doc("My bots", { data: t.Object({ bots: t.Array(OwnedBot) }) }) },
      )
      .post(
        "",
        async ({ user, body }) => {
          if (user.is_bot) throw forbidden("Bots cannot own bots");
          const made = await createBot(app, { ownerId: user.id, username: body.username, name: body.name });
          // the token is shown this once: only its hash is kept
          return ok({ bot: serializeOwnedBot(app, made), token: made.token });
        },
        {
          auth: true,
          body: CreateBody,
          detail: doc("Create a bot (username ending in _bot); its token is shown this once", {
            data: t.Object({ bot: OwnedBot, token: t.String() }),
            errors: ["FORBIDDEN"],
          }),
        },
      )
      .post(
        "/:username/token",
        async ({ user, params }) => {
          const found = await requireOwnedBot(app.db, user.id, params.username);
          const token = await reissueToken(app, found.bot.id);
          return ok({ bot: serializeOwnedBot(app, found), token });
        },
        {
          auth: true,
          detail: doc("Issue a new token; the old one stops working at once", {
            data: t.Object({ bot: OwnedBot, token: t.String() }),
          }),
        },
      )
      .get(
        "/:username/log",
        ({ user, params, query, request }) => ownerLog(user.id, params.username, query, request, false),
        {
          auth: true,
          query: LogQuery,
          detail: doc("The bot's recent Bot API calls and delivered updates (kept in memory, newest last)", {
            data: BotLog,
          }),
        },
      )
      .get(
        "/:username/log/stream",
        ({ user, params, query, request }) => ownerLog(user.id, params.username, query, request, true),
        {
          auth: true,
          query: LogQuery,
          detail: doc("The same log live, as Server-Sent Events (event: entry, data: one entry as JSON)", {
            content: { "text/event-stream": { schema: t.String() } },
          }),
        },
      )
      .patch(
        "/:username",
        async ({ user, params, body }) => {
          const found = await requireOwnedBot(app.db, user.id, params.username);
          const commands =
            body.commands && parseBotCommands(body.commands, (reason, field) => fieldError(field, reason));
          const bot = await updateBotSettings(app, found.bot.id, { ...body, commands });
          return ok({ bot: serializeOwnedBot(app, { bot, user: found.user }) });
        },
        {
          auth: true,
          body: PatchBody,
          detail: doc("Change a bot: enabled, privacy (all or commands), description, short description, commands", {
            data: t.Object({ bot: OwnedBot }),
          }),
        },
      )
      // owner: {held, withdrawable, nextReleaseAt, holdSeconds, recentPayments}; withdraw {amount?}
      .get(
        "/:username/income",
        async ({ user, params }) => {
          const { user: botUser } = await requireOwnedBot(app.db, user.id, params.username);
          return ok({
            ...serializeIncome(await botIncome(app, botUser.id)),
            holdSeconds: app.config["payments.holdSeconds"],
          });
        },
        {
          auth: true,
          detail: doc("The bot's income in stars: held, withdrawable, recent payments", {
            data: t.Composite([Income, t.Object({ holdSeconds: t.Integer() })]),
          }),
        },
      )
      .post(
        "/:username/income/withdraw",
        async ({ user, params, body }) => {
          const { user: botUser } = await requireOwnedBot(app.db, user.id, params.username);
          const out = await withdrawIncome(app, { botUserId: botUser.id, ownerId: user.id, amount: body?.amount });
          return ok({ withdrawn: out.withdrawn, balance: out.balance, ...serializeIncome(out) });
        },
        {
          auth: true,
          body: t.Optional(WithdrawBody),
          detail: doc("Move withdrawable income to my balance (all of it, or amount)", {
            data: t.Composite([Income, t.Object({ withdrawn: t.Integer(), balance: t.Integer() })]),
            errors: ["INSUFFICIENT_BALANCE"],
          }),
        },
      )
  );
}

/** /api/social/bots/{username}: a bot's public card. */
export function botProfileRoutes(app: App) {
  return new Elysia({ name: "client-bot-profile" }).use(requestContext(app)).get(
    "/:username",
    async ({ params, user }) => {
      const found = await findBotByUsername(app.db, params.username);
      if (!found || found.bot.blocked_at) throw notFound("Bot not found");
      const chat = await findPrivateChat(app.db, user.id, found.user.id);
      return ok({
        bot: {
          ...serializePublicUser(found.user),
          description: found.bot.description,
          shortDescription: found.bot.short_description,
          // the list the bot set for this person's chat and language (setMyCommands scopes and language_code)
          commands: commandsShownTo(found.bot, user),
          enabled: found.bot.disabled_at === null,
          // the button the app shows beside this person's input (setChatMenuButton): commands or a web_app
          menuButton: menuButtonFor(botProfile(found.bot), chat ? `chat:${chat.id}` : "default"),
        },
      });
    },
    {
      auth: true,
      detail: doc("A bot's public card: description, commands, menu button", {
        data: t.Object({ bot: BotCard }),
      }),
    },
  );
}
