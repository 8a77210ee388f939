import { doc } from "../docs";
import { Invite } from "../schemas";
import { Elysia, t } from "elysia";
import type { App } from "../../app";
import {
  createInvite,
  describeInvite,
  INVITE_EXPIRES_IN_HOURS_LIMIT,
  INVITE_MAX_USES_LIMIT,
  listInvites,
  revokeInvite,
} from "../../domain/auth/invites";
import type { AuthInviteRow } from "../../domain/auth/table";
import { ok } from "../../http/envelope";
import { toIso } from "../../lib/clock";
import { adminContext, logged } from "./guard";

const CreateBody = t.Object({
  maxUses: t.Optional(t.Integer({ minimum: 1, maximum: INVITE_MAX_USES_LIMIT })),
  expiresInHours: t.Optional(t.Integer({ minimum: 1, maximum: INVITE_EXPIRES_IN_HOURS_LIMIT })),
});
const CodeParams = t.Object({ code: t.String({ minLength: 1, maxLength: 64 }) });

const serializeInvite = (app: App, row: AuthInviteRow, createdBy: string | null): typeof Invite.static =>
  describeInvite(row, app.config.baseUrl, app.clock.now(), createdBy);

// the audit log names an invite by its start: enough to tell invites apart, not enough to use one
const inviteTarget = (code: string) => ({ type: "invite" as const, id: code, label: `invite ${code.slice(0, 4)}…` });

/** /api/admin/invites: sign-up invites for registration mode `invite` (and a way past the captcha). */
export function adminInviteRoutes(app: App) {
  return new Elysia({ name: "admin-invites" })
    .use(adminContext(app))
    .get(
      "/",
      async () => {
        const rows = await listInvites(app.db);
        return ok({ invites: rows.map((r) => serializeInvite(app, r, r.created_by_username)) });
      },
      {
        admin: true,
        detail: doc("Admin: every invite, newest first", { data: t.Object({ invites: t.Array(Invite) }) }),
      },
    )
    .post(
      "/",
      async ({ admin, body }) => {
        const row = await logged(
          app,
          admin,
          [{ action: "invite.create", target: { type: "invite", id: "", label: "invite" }, details: { ...body } }],
          () => createInvite(app.db, app.clock.now(), admin.id, body),
          (made) => ({
            target: inviteTarget(made.code),
            details: { ...body, maxUses: made.max_uses, expiresAt: toIso(made.expires_at) },
          }),
        );
        return ok({ invite: serializeInvite(app, row, admin.username) });
      },
      {
        admin: true,
        body: CreateBody,
        detail: doc("Admin: make a sign-up invite (defaults: one use, seven days)", {
          data: t.Object({ invite: Invite }),
        }),
      },
    )
    .post(
      "/:code/revoke",
      async ({ admin, params }) => {
        const row = await logged(app, admin, [{ action: "invite.revoke", target: inviteTarget(params.code) }], () =>
          revokeInvite(app.db, app.clock.now(), params.code),
        );
        const [withCreator] = await listInvites(app.db, row.code);
        return ok({ invite: serializeInvite(app, row, withCreator?.created_by_username ?? null) });
      },
      {
        admin: true,
        params: CodeParams,
        detail: doc("Admin: revoke an invite (it admits nobody from now on)", {
          data: t.Object({ invite: Invite }),
          errors: ["NOT_FOUND"],
        }),
      },
    );
}
