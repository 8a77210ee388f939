import { doc } from "../docs";
import { LiveSetting } from "../schemas";
import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { applyLiveSettings, liveSettings, planLiveSettings } from "../../domain/admin/settings";
import { ok } from "../../http/envelope";
import { adminContext, logged } from "./guard";

/** key → new value (instance.rules: an array of strings, or its JSON text); each value is validated by its key's own parser, as `config set` does. */
const PatchBody = t.Record(
  t.String({ maxLength: 100 }),
  t.Union([
    t.String({ maxLength: 10_000 }),
    t.Number(),
    t.Boolean(),
    t.Array(t.String({ maxLength: 1000 }), { maxItems: 50 }),
  ]),
);

/**
 * /api/admin/settings: the config keys safe to change on a running server (registration, instance.*,
 * moderation.blockedWords, limits.*), kept in the instance's database and applied on every node.
 */
export function adminSettingsRoutes(app: App) {
  return new Elysia({ name: "admin-settings" })
    .use(adminContext(app))
    .get("/", () => ok({ settings: liveSettings(app) }), {
      admin: true,
      detail: doc("Admin: the instance settings that can change while serving", {
        data: t.Object({ settings: t.Array(LiveSetting) }),
      }),
    })
    .patch(
      "/",
      async ({ admin, body }) => {
        const changes = planLiveSettings(app, body);
        const entries = changes.map((c) => ({
          action: "setting.change",
          target: { type: "setting" as const, id: c.key, label: c.key },
          details: { from: c.from, to: c.to },
        }));
        await logged(app, admin, entries, () => applyLiveSettings(app, changes, admin.id));
        return ok({ settings: liveSettings(app), changed: changes.map((c) => c.key) });
      },
      {
        admin: true,
        body: PatchBody,
        detail: doc("Admin: change instance settings", {
          data: t.Object({ settings: t.Array(LiveSetting), changed: t.Array(t.String()) }),
        }),
      },
    );
}
