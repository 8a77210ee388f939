import { doc } from "../docs";
import { AdminBot } from "../schemas";
import { Elysia, t } from "elysia";
import type { App } from "../../app";
import {
  findBotByUsername,
  listAllBots,
  setBotBlocked,
  updateBotSettings,
  type BotWithUser,
} from "../../domain/bots/service";
import { recheckLongPolls } from "../../domain/bots/updates";
import type { UserRow } from "../../domain/users/table";
import { ok } from "../../http/envelope";
import { toIso } from "../../lib/clock";
import { notFound } from "../../lib/errors";
import { adminContext, logged } from "./guard";

const UsernameParams = t.Object({ username: t.String({ minLength: 1, maxLength: 64 }) });

function serializeAdminBot({ bot, user }: BotWithUser, owner: string | null): typeof AdminBot.static {
  return {
    id: bot.cuid,
    username: user.username,
    name: user.display_name,
    owner,
    enabled: bot.disabled_at === null,
    blocked: bot.blocked_at !== null,
    createdAt: toIso(bot.created_at),
  };
}

/** /api/admin/bots: every bot, disable / enable (as `socialctl bot disable`), block by moderation. */
export function adminBotRoutes(app: App) {
  const ownerNames = async (ownerIds: number[]) => {
    if (!ownerIds.length) return new Map<number, string>();
    const rows = await app.db.selectFrom("users").select(["id", "username"]).where("id", "in", ownerIds).execute();
    return new Map(rows.map((r) => [r.id, r.username]));
  };
  const requireBot = async (username: string) => {
    const found = await findBotByUsername(app.db, username);
    if (!found) throw notFound(`Bot ${username} not found`);
    return found;
  };
  /** Applies CHANGE to the bot, logs it, and answers with the bot as it is now. */
  const act =
    (action: string, change: (found: BotWithUser) => Promise<BotWithUser["bot"]>) =>
    async ({ admin, params }: { admin: UserRow; params: { username: string } }) => {
      const found = await requireBot(params.username);
      const bot = await logged(
        app,
        admin,
        [{ action, target: { type: "bot", id: found.bot.cuid, label: `@${found.user.username}` } }],
        () => change(found),
      );
      // a getUpdates already waiting for a bot just disabled or blocked ends now, not when it times out
      await recheckLongPolls(app);
      const owners = await ownerNames([bot.owner_id]);
      return ok({ bot: serializeAdminBot({ bot, user: found.user }, owners.get(bot.owner_id) ?? null) });
    };
  const opts = { admin: true, params: UsernameParams } as const;

  return new Elysia({ name: "admin-bots" })
    .use(adminContext(app))
    .get(
      "/",
      async () => {
        const bots = await listAllBots(app.db);
        const owners = await ownerNames([...new Set(bots.map((b) => b.bot.owner_id))]);
        return ok({ bots: bots.map((b) => serializeAdminBot(b, owners.get(b.bot.owner_id) ?? null)) });
      },
      { admin: true, detail: doc("Admin: every bot with its owner", { data: t.Object({ bots: t.Array(AdminBot) }) }) },
    )
    .post(
      "/:username/disable",
      act("bot.disable", (f) => updateBotSettings(app, f.bot.id, { enabled: false })),
      { ...opts, detail: doc("Admin: disable a bot", { data: t.Object({ bot: AdminBot }) }) },
    )
    .post(
      "/:username/enable",
      act("bot.enable", (f) => updateBotSettings(app, f.bot.id, { enabled: true })),
      { ...opts, detail: doc("Admin: enable a bot", { data: t.Object({ bot: AdminBot }) }) },
    )
    .post(
      "/:username/block",
      act("bot.block", (f) => setBotBlocked(app, f.bot.id, true)),
      {
        ...opts,
        detail: doc("Admin: block a bot (moderation; its owner cannot enable it)", {
          data: t.Object({ bot: AdminBot }),
        }),
      },
    )
    .post(
      "/:username/unblock",
      act("bot.unblock", (f) => setBotBlocked(app, f.bot.id, false)),
      { ...opts, detail: doc("Admin: unblock a bot", { data: t.Object({ bot: AdminBot }) }) },
    );
}
