import type { Command } from "commander";
import { setPriority } from "node:os";
import { resolveDataDir } from "../../src/config";
import { createBackup, listBackups, type BackupProgress } from "../../src/ops/backup";
import { restoreBackup } from "../../src/ops/restore";
import { verifyBackup } from "../../src/ops/verify";
import { CliError, emit, type GlobalOptions } from "../output";
import { globals } from "../context";
import { socialctl } from "../hints";
import { progressBars } from "../progress";

const PHASES: Record<BackupProgress["phase"], string> = {
  snapshot: "Snapshotting the database",
  bucket: "Listing the bucket",
  files: "Collecting files",
  checksums: "Computing checksums",
  compress: "Compressing",
};

export const formatBytes = (n: number): string => {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${i === 0 ? n : n.toFixed(1)} ${units[i]}`;
};

function parseKeep(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new CliError("--keep must be a positive integer");
  return n;
}

export function registerBackup(program: Command) {
  const backup = program.command("backup").description("hot backups of the database, files and config; restore");

  backup
    .command("create")
    .description("write a consistent backup archive while the server keeps running")
    .option("--out <file>", "archive path (default <data-dir>/backups/backup-<time>.tar.gz)")
    .option("--keep <n>", "then keep only the newest N archives in that folder")
    .option("--without-derived", "leave out thumbnails and video posters (rebuildable)")
    .action(async (f: { out?: string; keep?: string; withoutDerived?: boolean }, cmd: Command) => {
      const opts = globals(cmd);
      const keep = parseKeep(f.keep);
      // a backup is background work: the server on the same cores wins every contest for CPU (and I/O)
      try {
        setPriority(19);
      } catch {
        // not permitted here: run at normal priority
      }
      const progress = progressBars(opts);
      try {
        const result = await createBackup({
          dataDir: resolveDataDir(opts.dataDir),
          out: f.out,
          keep,
          withoutDerived: f.withoutDerived,
          onProgress: (ev) => progress.update(PHASES[ev.phase], ev.done, ev.total),
        });
        progress.stop(`Backup written: ${result.path}`);
        const { files: _files, bucket, ...summary } = result.manifest;
        // the object list stays in the archive's manifest; the summary says what it covers
        const bucketSummary = bucket && { ...bucket, objects: undefined, missing: bucket.missing.length };
        emit(opts, { ...result, manifest: { ...summary, ...(bucketSummary ? { bucket: bucketSummary } : {}) } }, () =>
          [
            `${result.path} (${formatBytes(result.sizeBytes)}, ${result.manifest.fileCount} files, schema ${result.manifest.schemaVersion ?? "empty"})`,
            `covers ${result.manifest.database?.covers ?? "the database, files, config and instance secret"}`,
            ...(bucket?.listingError
              ? [
                  `WARNING: the archive holds ${bucket.covers}. The database is backed up all the same; check the bucket settings (${socialctl(opts)} doctor) and back up again.`,
                ]
              : bucket
                ? [
                    `lists ${bucket.covers} (${formatBytes(bucket.totalBytes)})`,
                    ...(bucket.missing.length
                      ? [
                          `WARNING: ${bucket.missing.length} files the database references are not in the bucket (${bucket.missing.slice(0, 3).join(", ")}${bucket.missing.length > 3 ? ", …" : ""}); if they are still under the data dir's files/, run: ${socialctl(opts)} media to-s3 ${bucket.bucket}`,
                        ]
                      : []),
                    `Check later that the bucket still holds them: ${socialctl(opts)} backup verify ${result.path}`,
                  ]
                : []),
            `database snapshot took ${Math.round(result.snapshotMs)} ms; ${Math.round(result.totalMs)} ms in all`,
            ...result.pruned.map((r) => `removed old backup ${r}`),
            "The archive holds the instance secret and password hashes: store it privately.",
          ].join("\n"),
        );
      } catch (err) {
        progress.error("Backup failed");
        throw err;
      }
    });

  backup
    .command("list")
    .description("backup archives and pre-migration snapshots, newest first")
    .action(async (_f: unknown, cmd: Command) => {
      const opts = globals(cmd);
      const list = await listBackups(resolveDataDir(opts.dataDir));
      emit(opts, { backups: list }, () =>
        list.length === 0
          ? "No backups."
          : list
              .map(
                (b) =>
                  `${b.createdAt}\t${formatBytes(b.sizeBytes)}\t${b.schemaVersion ?? "-"}\t${b.fileCount ?? "-"} files${b.bucketObjects !== undefined ? ` + ${b.bucketObjects} in the bucket` : ""}\t${b.kind === "archive" ? "" : `${b.kind} `}${b.path}${b.error ? `\tUNREADABLE: ${b.error}` : ""}`,
              )
              .join("\n"),
      );
    });

  registerVerify(backup);

  backup
    .command("restore <file>")
    .description(
      "restore an archive into a stopped instance or an empty data dir (verifies it first; a PostgreSQL instance's dump goes into an empty database with pg_restore)",
    )
    .option("--force", "replace the instance in the data dir (it must be stopped)")
    .option(
      "--database-url <url>",
      "a PostgreSQL instance's archive: pg_restore into this empty database instead of the one its config names",
    )
    .action(async (file: string, f: { force?: boolean; databaseUrl?: string }, cmd: Command) => {
      const opts = globals(cmd);
      const progress = progressBars(opts);
      try {
        const result = await restoreBackup({
          dataDir: resolveDataDir(opts.dataDir),
          file,
          force: f.force,
          databaseUrl: f.databaseUrl,
          onProgress: (ev) => progress.update("Unpacking and verifying", ev.done, ev.total),
        });
        progress.stop("Restored");
        const { manifest } = result;
        emit(
          opts,
          {
            dataDir: result.dataDir,
            replaced: result.replaced,
            createdAt: manifest.createdAt,
            schemaVersion: manifest.schemaVersion,
            fileCount: manifest.fileCount,
            withoutDerived: manifest.withoutDerived,
            ...(result.databaseUrl ? { databaseUrl: result.databaseUrl } : {}),
            ...(manifest.bucket
              ? { bucket: { bucket: manifest.bucket.bucket, objectCount: manifest.bucket.objectCount } }
              : {}),
          },
          [
            `Restored the backup of ${manifest.createdAt} into ${result.dataDir}${result.replaced ? " (the previous instance was replaced)" : ""}.`,
            ...(result.databaseUrl
              ? [
                  `Its PostgreSQL dump went into ${result.databaseUrl} (pg_restore, one transaction; database.url names it).`,
                ]
              : []),
            ...(manifest.bucket
              ? [
                  `Its files are the ${manifest.bucket.objectCount} objects of bucket ${manifest.bucket.bucket} the archive lists; check they are all still there: ${socialctl(opts)} backup verify ${file}`,
                ]
              : []),
            `Start it with: ${socialctl(opts)} serve`,
          ].join("\n"),
        );
      } catch (err) {
        progress.error("Restore failed; the data dir is unchanged");
        throw err;
      }
    });
}

/** socialctl backup verify FILE: the archive's checksums, and the bucket objects it lists. */
function registerVerify(backup: Command) {
  backup
    .command("verify <file>")
    .description("check an archive's files against its manifest and that the bucket still holds the objects it lists")
    .action(async (file: string, _f: unknown, cmd: Command) => {
      const opts = globals(cmd);
      const progress = progressBars(opts);
      let report;
      try {
        report = await verifyBackup({
          dataDir: resolveDataDir(opts.dataDir),
          file,
          onProgress: (p) =>
            progress.update(p.step === "archive" ? "Checking the archive" : "Listing the bucket", p.done, p.total),
        });
        progress.stop("Checked");
      } catch (err) {
        progress.error("The archive fails its check");
        throw err;
      }
      const b = report.bucket;
      const few = (keys: string[]) => `${keys.slice(0, 5).join(", ")}${keys.length > 5 ? ", …" : ""}`;
      emit(opts, report, () =>
        [
          `${report.file}: ${report.archiveFiles} files match their sha256 (backup of ${report.createdAt}, schema ${report.schemaVersion ?? "empty"})`,
          ...(b
            ? [
                `bucket ${b.bucket}${b.endpoint ? ` at ${b.endpoint}` : ""}: ${b.present} of ${b.listed} listed objects present with the same size and ETag`,
                ...(b.listingError
                  ? [
                      `the archive lists no objects: the bucket could not be listed when it was made (${b.listingError})`,
                    ]
                  : []),
                ...(b.missing.length ? [`MISSING ${b.missing.length}: ${few(b.missing)}`] : []),
                ...(b.changed.length ? [`CHANGED ${b.changed.length} (size or ETag differ): ${few(b.changed)}`] : []),
                ...(b.derivedMissing.length || b.derivedChanged.length
                  ? [
                      `${b.derivedMissing.length + b.derivedChanged.length} thumbnails or posters missing or changed (after a restore, ${socialctl(opts)} media rebuild-derived makes them again)`,
                    ]
                  : []),
                ...(report.ok
                  ? []
                  : [
                      "Restore the missing objects from the bucket's versions or replica before relying on this backup.",
                    ]),
              ]
            : ["the files are in the archive (no bucket)"]),
        ].join("\n"),
      );
      if (!report.ok) process.exitCode = 1;
    });
}
