import { Elysia, t } from "elysia";
import { doc } from "../docs";
import { Backup, Backups, RebuildReport } from "../schemas";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { App } from "../../app";
import { backupsDir } from "../../config/layout";
import { ok } from "../../http/envelope";
import { AppError, notFound } from "../../lib/errors";
import { ARCHIVE_RE, listBackups, type BackupListing } from "../../ops/backup";
import { rebuildDerived } from "../../ops/rebuild-derived";
import { lastLine, runSelf } from "../../ops/schedule";
import { adminContext, logged } from "./guard";

const CreateBody = t.Object({ withoutDerived: t.Optional(t.Boolean()) });
const NameParams = t.Object({ name: t.String({ minLength: 1, maxLength: 200 }) });

/** A backup as the admin API shows it: where it lies on the server's disk is not the browser's business. */
const shown = ({ path: _path, ...entry }: BackupListing) => entry;

/** One piece of maintenance at a time per process: two backups at once only compete for the disk. */
const busy = (message: string) => new AppError(409, "MAINTENANCE_RUNNING", message);

/**
 * /api/admin/maintenance: what `socialctl backup create|list` and `media rebuild-derived` do,
 * for administrators in the browser. A backup runs as `socialctl backup create` in a child
 * process (as the automatic ones do) and is answered once the archive is complete on disk;
 * downloading one is logged too, since it holds every account's data and the instance secret.
 * Restoring stays on the command line: it replaces the data dir of a stopped server.
 */
export function adminMaintenanceRoutes(app: App) {
  // while a piece of maintenance runs: the refusal every other one gets
  let running: string | null = null;
  let child: ReturnType<typeof Bun.spawn> | null = null;
  app.onClose(async () => {
    child?.kill();
    await child?.exited;
  });
  const exclusive = async <R>(refusal: string, work: () => Promise<R>): Promise<R> => {
    if (running) throw busy(running);
    running = refusal;
    try {
      return await work();
    } finally {
      running = null;
    }
  };

  return new Elysia({ name: "admin-maintenance" })
    .use(adminContext(app))
    .get(
      "/backups",
      async () => {
        const list = await listBackups(app.dataDir);
        return ok({
          backups: list.map(shown),
          running,
          keep: app.config["backup.keep"],
          everySeconds: app.config["backup.every"],
        });
      },
      {
        admin: true,
        detail: doc("Admin: the backups in the data folder, newest first", {
          data: Backups,
        }),
      },
    )
    .post(
      "/backups",
      ({ admin, body }) =>
        exclusive("A backup is already running; try when it ends", () =>
          logged(
            app,
            admin,
            [{ action: "backup.create", target: { type: "instance", id: "backup", label: "backup" } }],
            async () => {
              const args = ["backup", "create", "--keep", String(app.config["backup.keep"])];
              if (body.withoutDerived) args.push("--without-derived");
              const { code, out, err } = await runSelf(app.dataDir, args, (c) => (child = c));
              if (code !== 0) throw new Error(`the backup failed: ${lastLine(err)}`);
              const result = JSON.parse(out) as { path: string; sizeBytes: number; pruned: string[] };
              const name = result.path.split("/").pop()!;
              const listed = (await listBackups(app.dataDir)).find((b) => b.name === name);
              return {
                name,
                sizeBytes: result.sizeBytes,
                pruned: result.pruned,
                backup: listed ? shown(listed) : null,
              };
            },
            (r) => ({
              target: { type: "instance", id: r.name, label: r.name },
              details: { sizeBytes: r.sizeBytes, withoutDerived: Boolean(body.withoutDerived) },
            }),
          ),
        ).then((r) => ok({ backup: r.backup, pruned: r.pruned.map((p) => p.split("/").pop()) })),
      {
        admin: true,
        body: CreateBody,
        detail: doc("Admin: make a backup now (answered once the archive is complete)", {
          data: t.Object({ backup: t.Union([Backup, t.Null()]), pruned: t.Array(t.String()) }),
          errors: ["MAINTENANCE_RUNNING"],
        }),
      },
    )
    .get(
      "/backups/:name/download",
      async ({ admin, params, set }) => {
        // only an archive's own name: no path can be smuggled into data/backups
        if (!ARCHIVE_RE.test(params.name) || params.name.includes("/") || params.name.includes(".."))
          throw notFound("No such backup");
        const path = join(backupsDir(app.dataDir), params.name);
        if (!existsSync(path)) throw notFound("No such backup");
        await logged(
          app,
          admin,
          [{ action: "backup.download", target: { type: "instance", id: params.name, label: params.name } }],
          async () => undefined,
        );
        set.headers["content-type"] = "application/gzip";
        set.headers["content-disposition"] = `attachment; filename="${params.name}"`;
        set.headers["cache-control"] = "no-store";
        return Bun.file(path);
      },
      {
        admin: true,
        params: NameParams,
        detail: doc("Admin: download a backup archive", {
          content: { "application/gzip": { schema: t.String({ format: "binary" }) } },
          errors: ["NOT_FOUND"],
        }),
      },
    )
    .post(
      "/media/rebuild-derived",
      ({ admin }) =>
        exclusive("Rebuilding thumbnails and posters is already running; try when it ends", () =>
          logged(
            app,
            admin,
            [{ action: "media.rebuild-derived", target: { type: "instance", id: "media", label: "media" } }],
            () => rebuildDerived(app),
            (r) => ({ details: { rebuilt: r.rebuilt, present: r.present, failed: r.failed.length } }),
          ),
        ).then((report) => ok({ report })),
      {
        admin: true,
        detail: doc("Admin: make missing thumbnails and video posters again", {
          data: t.Object({ report: RebuildReport }),
          errors: ["MAINTENANCE_RUNNING"],
        }),
      },
    );
}
