import type { Command } from "commander";
import { setPriority } from "node:os";
import { resolveDataDir } from "../../src/config";
import { createBackup, listBackups, type BackupProgress } from "../../src/ops/backup";
import { restoreBackup } from "../../src/ops/restore";
import { CliError, emit, type GlobalOptions } from "../output";
import { globals } from "../context";
import { socialctl } from "../hints";
import { progressBars } from "../progress";

const PHASES: Record<BackupProgress["phase"], string> = {
  snapshot: "Snapshotting the database",
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
        const { files: _files, ...summary } = result.manifest;
        emit(opts, { ...result, manifest: summary }, () =>
          [
            `${result.path} (${formatBytes(result.sizeBytes)}, ${result.manifest.fileCount} files, schema ${result.manifest.schemaVersion ?? "empty"})`,
            `covers ${result.manifest.database?.covers ?? "the database, files, config and instance secret"}`,
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
                  `${b.createdAt}\t${formatBytes(b.sizeBytes)}\t${b.schemaVersion ?? "-"}\t${b.fileCount ?? "-"} files\t${b.kind === "archive" ? "" : `${b.kind} `}${b.path}${b.error ? `\tUNREADABLE: ${b.error}` : ""}`,
              )
              .join("\n"),
      );
    });

  backup
    .command("restore <file>")
    .description("restore an archive into a stopped instance or an empty data dir (verifies it first)")
    .option("--force", "replace the instance in the data dir (it must be stopped)")
    .action(async (file: string, f: { force?: boolean }, cmd: Command) => {
      const opts = globals(cmd);
      const progress = progressBars(opts);
      try {
        const result = await restoreBackup({
          dataDir: resolveDataDir(opts.dataDir),
          file,
          force: f.force,
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
          },
          `Restored the backup of ${manifest.createdAt} into ${result.dataDir}${result.replaced ? " (the previous instance was replaced)" : ""}. Start it with: ${socialctl(opts)} serve`,
        );
      } catch (err) {
        progress.error("Restore failed; the data dir is unchanged");
        throw err;
      }
    });
}
