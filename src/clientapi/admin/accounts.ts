import { doc } from "../docs";
import { AdminAccount, Page } from "../schemas";
import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { setAccountAdmin, setAccountDisabled } from "../../domain/admin/accounts";
import { banUserDevices, unbanUserDevices } from "../../domain/auth/devices";
import { clearTwoFactor } from "../../domain/auth/two-factor";
import { MAX_POSTING_BLOCK_MINUTES, setPostingBlockedUntil } from "../../domain/moderation/service";
import { boundedSearch } from "../../domain/search/budget";
import { searchPeople } from "../../domain/search/people";
import {
  createUser,
  findUserByEmail,
  listAccounts,
  requireUserByUsername,
  setPassword,
} from "../../domain/users/service";
import { revokeSessionsAndNotify } from "../../domain/sessions/revoke";
import { grantStars } from "../../domain/stars/service";
import type { UserRow } from "../../domain/users/table";
import { ok } from "../../http/envelope";
import { toIso } from "../../lib/clock";
import { fieldError, notFound } from "../../lib/errors";
import { decodeCursor, parseLimit } from "../../lib/paging";
import { PageQuery } from "../input";
import { serializeAccount } from "../serializers/account";
import { realtimeHub } from "../../realtime/hub";
import { adminContext, logged } from "./guard";

const UsernameParams = t.Object({ username: t.String({ minLength: 1, maxLength: 64 }) });
const SearchQuery = t.Object({ q: t.Optional(t.String({ maxLength: 200 })), ...PageQuery.properties });
// the range is checked in the handler, so its message names it (the schema's would not)
const BlockPostingBody = t.Object({ minutes: t.Number() });
const CreateBody = t.Object({
  email: t.String({ maxLength: 320 }),
  username: t.String({ maxLength: 64 }),
  password: t.String({ maxLength: 128 }),
  displayName: t.Optional(t.String({ maxLength: 64 })),
  admin: t.Optional(t.Boolean()),
  verified: t.Optional(t.Boolean()),
});
const PasswordBody = t.Object({ password: t.String({ maxLength: 128 }) });
const GrantBody = t.Object({ amount: t.Integer(), reason: t.Optional(t.String({ maxLength: 200 })) });
const looksLikeEmail = (q: string) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(q);

/** An account as an administrator sees it: the owner's view plus its moderation state. */
function serializeAdminAccount(app: App, user: UserRow): typeof AdminAccount.static {
  const blockedUntil =
    user.posting_blocked_until !== null && user.posting_blocked_until > app.clock.now()
      ? user.posting_blocked_until
      : null;
  return {
    ...serializeAccount(user),
    disabled: user.disabled_at !== null,
    disabledAt: user.disabled_at === null ? null : toIso(user.disabled_at),
    postingBlockedUntil: blockedUntil === null ? null : toIso(blockedUntil),
  };
}

/** The system account delivers codes: it is not an administrator's target. */
async function requireTarget(app: App, username: string): Promise<UserRow> {
  const user = await requireUserByUsername(app.db, username);
  if (user.is_system) throw notFound(`User ${username} not found`);
  return user;
}

/** Actions that would lock the acting administrator out of the admin area are refused. */
function refuseSelf(admin: UserRow, target: UserRow, message: string) {
  if (admin.id === target.id) throw fieldError("username", message);
}

const label = (u: UserRow) => `@${u.username}`;

/**
 * /api/admin/accounts: search, create, disable / enable, grant / revoke admin, ban devices, block
 * posting, set a password, reset two-factor, grant stars: the `socialctl user` and `stars grant` commands.
 */
export function adminAccountRoutes(app: App) {
  /**
   * Runs CHANGE on TARGET under its audit entry (PARAMS: what the admin asked for; the change
   * returns its outcome), then answers with the account as it is now, the params and the outcome.
   */
  const act = async (
    admin: UserRow,
    target: UserRow,
    action: string,
    change: () => Promise<Record<string, unknown>>,
    params: Record<string, unknown> = {},
  ) => {
    const outcome = await logged(
      app,
      admin,
      [{ action, target: { type: "account", id: target.cuid, label: label(target) }, details: params }],
      change,
      (details) => ({ details }),
    );
    return ok({
      account: serializeAdminAccount(app, await requireTarget(app, target.username)),
      ...params,
      ...outcome,
    });
  };

  return new Elysia({ name: "admin-accounts" })
    .use(adminContext(app))
    .get(
      "/",
      async ({ query }) => {
        const limit = parseLimit(query.limit);
        const q = (query.q ?? "").trim();
        let page: { items: UserRow[]; nextCursor: string | null };
        if (!q) page = await listAccounts(app.db, { cursor: decodeCursor(query.cursor), limit });
        else if (looksLikeEmail(q)) {
          const found = await findUserByEmail(app.db, q);
          page = { items: found && !found.is_system ? [found] : [], nextCursor: null };
        } else {
          // a search: a long read, off the serving thread (Storage.longReads)
          const hits = await boundedSearch(app.storage, () =>
            searchPeople(app.storage.longReads, q, { viewer: null, cursor: query.cursor ?? null, limit }),
          );
          page = { items: hits.users, nextCursor: hits.nextCursor };
        }
        return ok({
          accounts: page.items.map((u) => serializeAdminAccount(app, u)),
          pageInfo: { nextCursor: page.nextCursor },
        });
      },
      {
        admin: true,
        query: SearchQuery,
        detail: doc("Admin: find accounts by e-mail or username", { data: Page("accounts", AdminAccount) }),
      },
    )
    .post(
      "/",
      async ({ admin, body }) => {
        // as `socialctl user create`: every field validated by the domain, the admin flag optional
        const params = { admin: body.admin === true, verified: body.verified === true };
        // logged by the username asked for; the new account's id completes the entry
        const created = await logged(
          app,
          admin,
          [
            {
              action: "account.create",
              target: { type: "account", id: body.username, label: `@${body.username}` },
              details: params,
            },
          ],
          () =>
            createUser(app.db, app.clock.now(), {
              email: body.email,
              username: body.username,
              password: body.password,
              displayName: body.displayName,
              isAdmin: body.admin,
              verified: body.verified,
            }),
          (u) => ({ target: { type: "account", id: u.cuid, label: label(u) } }),
        );
        await app.hooks.emit("user:created", { userId: created.id });
        return ok({ account: serializeAdminAccount(app, created) });
      },
      {
        admin: true,
        body: CreateBody,
        detail: doc("Admin: create an account", { data: t.Object({ account: AdminAccount }) }),
      },
    )
    .get(
      "/:username",
      async ({ params }) => ok({ account: serializeAdminAccount(app, await requireTarget(app, params.username)) }),
      {
        admin: true,
        params: UsernameParams,
        detail: doc("Admin: an account with its moderation state", { data: t.Object({ account: AdminAccount }) }),
      },
    )
    .post(
      "/:username/disable",
      async ({ admin, params }) => {
        const target = await requireTarget(app, params.username);
        refuseSelf(admin, target, "is your own account: you cannot disable it");
        return act(admin, target, "account.disable", () => setAccountDisabled(app, target.id, true));
      },
      {
        admin: true,
        params: UsernameParams,
        detail: doc("Admin: disable an account (its sessions end)", { data: t.Object({ account: AdminAccount }) }),
      },
    )
    .post(
      "/:username/enable",
      async ({ admin, params }) => {
        const target = await requireTarget(app, params.username);
        return act(admin, target, "account.enable", async () => (await setAccountDisabled(app, target.id, false), {}));
      },
      {
        admin: true,
        params: UsernameParams,
        detail: doc("Admin: enable an account", { data: t.Object({ account: AdminAccount }) }),
      },
    )
    .post(
      "/:username/grant-admin",
      async ({ admin, params }) => {
        const target = await requireTarget(app, params.username);
        return act(admin, target, "account.grant-admin", () => setAccountAdmin(app, target, true));
      },
      {
        admin: true,
        params: UsernameParams,
        detail: doc("Admin: make the account an administrator (socialctl user grant-admin)", {
          data: t.Object({ account: AdminAccount, changed: t.Boolean() }),
        }),
      },
    )
    .post(
      "/:username/revoke-admin",
      async ({ admin, params }) => {
        const target = await requireTarget(app, params.username);
        refuseSelf(admin, target, "is your own account: you cannot revoke admin from it (another administrator can)");
        return act(admin, target, "account.revoke-admin", () => setAccountAdmin(app, target, false));
      },
      {
        admin: true,
        params: UsernameParams,
        detail: doc("Admin: take the administrator flag away; never from the last administrator", {
          data: t.Object({ account: AdminAccount, changed: t.Boolean() }),
        }),
      },
    )
    .post(
      "/:username/ban-devices",
      async ({ admin, params }) => {
        const target = await requireTarget(app, params.username);
        refuseSelf(admin, target, "is your own account: you cannot ban the devices of it");
        const answer = await act(admin, target, "account.ban-devices", async () => ({
          bannedDevices: await banUserDevices(app.db, app.clock.now(), target.id),
        }));
        // open streams from the banned devices (anyone's) end now, not at the next heartbeat
        await realtimeHub(app).closeRevoked();
        return answer;
      },
      {
        admin: true,
        params: UsernameParams,
        detail: doc("Admin: ban the devices the account signed in from", { data: t.Object({ account: AdminAccount }) }),
      },
    )
    .post(
      "/:username/unban-devices",
      async ({ admin, params }) => {
        const target = await requireTarget(app, params.username);
        return act(admin, target, "account.unban-devices", async () => ({
          unbannedDevices: await unbanUserDevices(app.db, target.id),
        }));
      },
      {
        admin: true,
        params: UsernameParams,
        detail: doc("Admin: lift the account's device bans", { data: t.Object({ account: AdminAccount }) }),
      },
    )
    .post(
      "/:username/block-posting",
      async ({ admin, params, body }) => {
        const target = await requireTarget(app, params.username);
        if (!Number.isInteger(body.minutes) || body.minutes < 1 || body.minutes > MAX_POSTING_BLOCK_MINUTES)
          throw fieldError("minutes", `must be an integer from 1 to ${MAX_POSTING_BLOCK_MINUTES}`);
        const now = app.clock.now();
        return act(
          admin,
          target,
          "account.block-posting",
          async () => (await setPostingBlockedUntil(app.db, now, target.id, now + body.minutes * 60_000), {}),
          { minutes: body.minutes },
        );
      },
      {
        admin: true,
        params: UsernameParams,
        body: BlockPostingBody,
        detail: doc("Admin: stop the account from publishing for a while", {
          data: t.Object({ account: AdminAccount }),
        }),
      },
    )
    .post(
      "/:username/unblock-posting",
      async ({ admin, params }) => {
        const target = await requireTarget(app, params.username);
        return act(
          admin,
          target,
          "account.unblock-posting",
          async () => (await setPostingBlockedUntil(app.db, app.clock.now(), target.id, null), {}),
        );
      },
      {
        admin: true,
        params: UsernameParams,
        detail: doc("Admin: let the account publish again", { data: t.Object({ account: AdminAccount }) }),
      },
    )
    .post(
      "/:username/password",
      async ({ admin, params, body }) => {
        const target = await requireTarget(app, params.username);
        refuseSelf(
          admin,
          target,
          "is your own account: you cannot set a password for it (change your own in the account settings)",
        );
        // as `socialctl user set-password`: the new password signs the account out everywhere
        return act(admin, target, "account.set-password", async () => {
          await setPassword(app, target.id, body.password);
          return { sessionsRevoked: await revokeSessionsAndNotify(app, target.id, null) };
        });
      },
      {
        admin: true,
        params: UsernameParams,
        body: PasswordBody,
        detail: doc("Admin: set the account's password", { data: t.Object({ account: AdminAccount }) }),
      },
    )
    .post(
      "/:username/stars",
      async ({ admin, params, body }) => {
        const target = await requireTarget(app, params.username);
        // as `socialctl stars grant`: the only way stars enter the system
        return act(
          admin,
          target,
          "stars.grant",
          async () => ({ balance: await grantStars(app, target.id, body.amount, body.reason) }),
          { amount: body.amount, reason: body.reason ?? null },
        );
      },
      {
        admin: true,
        params: UsernameParams,
        body: GrantBody,
        detail: doc("Admin: grant stars to the account", { data: t.Object({}, { additionalProperties: true }) }),
      },
    )
    .post(
      "/:username/reset-two-factor",
      async ({ admin, params }) => {
        const target = await requireTarget(app, params.username);
        return act(
          admin,
          target,
          "account.reset-two-factor",
          async () => (await clearTwoFactor(app.db, app.clock.now(), target.id), {}),
          { previousMethod: target.two_factor_method },
        );
      },
      {
        admin: true,
        params: UsernameParams,
        detail: doc("Admin: turn the account's two-factor sign-in off", { data: t.Object({ account: AdminAccount }) }),
      },
    );
}
