import { t } from "elysia";
import { doc } from "../docs";
import { InstanceStatus } from "../schemas";
import { Elysia } from "elysia";
import type { App } from "../../app";
import { ok } from "../../http/envelope";
import { toIso } from "../../lib/clock";
import { healthz, readiness } from "../../ops/health";
import { collectStatus } from "../../ops/status";
import { adminContext } from "./guard";

/** /api/admin/status: what `socialctl status` prints, from the serving process itself. */
export function adminStatusRoutes(app: App) {
  return new Elysia({ name: "admin-status" }).use(adminContext(app)).get(
    "/",
    async () => {
      const self = {
        running: true,
        pid: process.pid,
        url: app.config.baseUrl,
        startedAt: toIso(app.startedAt),
        uptimeSeconds: healthz(app).uptimeSeconds,
        healthy: true,
        readiness: await readiness(app),
      };
      return ok({ status: await collectStatus(app.dataDir, { self }) });
    },
    {
      admin: true,
      detail: doc("Admin: version, sizes, counts, backups", { data: t.Object({ status: InstanceStatus }) }),
    },
  );
}
