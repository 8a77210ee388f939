import type { Command } from "commander";
import { resolveDataDir } from "../../src/config";
import { rebuildDerived } from "../../src/ops/rebuild-derived";
import { moveFilesToS3 } from "../../src/ops/to-s3";
import { emit } from "../output";
import { socialctl } from "../hints";
import { formatBytes } from "./backup";
import { globals, withApp } from "../context";
import { progressBars } from "../progress";

export function registerMedia(program: Command) {
  const media = program.command("media").description("uploaded files");
  media
    .command("rebuild-derived")
    .description(
      "make missing thumbnails and video posters again from the originals (after a --without-derived restore)",
    )
    .action(async (_f: unknown, cmd: Command) => {
      const opts = globals(cmd);
      const progress = progressBars(opts);
      const report = await withApp(opts, (app) =>
        rebuildDerived(app, (done, total) => progress.update("Rebuilding thumbnails and posters", done, total)),
      );
      progress.stop("Rebuilt");
      emit(opts, report, () =>
        [
          `rebuilt ${report.rebuilt}, already present ${report.present}, failed ${report.failed.length}`,
          ...report.failed.map((f) => `  ${f.file} (upload ${f.upload}): ${f.reason}`),
        ].join("\n"),
      );
    });

  media
    .command("to-s3 <bucket>")
    .description(
      "copy every upload, thumbnail and poster under the data dir into BUCKET (files.s3.* as configured), read each back and compare, then set files.s3.bucket",
    )
    .action(async (bucket: string, _f: unknown, cmd: Command) => {
      const opts = globals(cmd);
      const progress = progressBars(opts);
      let result;
      try {
        result = await moveFilesToS3(resolveDataDir(opts.dataDir), bucket, (p) =>
          progress.update(`Copying files into ${bucket}`, p.done, p.total),
        );
        progress.stop("Copied and verified");
      } catch (err) {
        progress.error("Not switched: the instance stays on local files");
        throw err;
      }
      emit(opts, result, () =>
        [
          `${result.files} files: ${result.uploaded} copied (${formatBytes(result.bytes)}) and ${result.alreadyThere} already in bucket ${bucket}, each matched by size and sha256, in ${Math.round(result.ms)} ms.`,
          ...(result.missing.length
            ? [
                `${result.missing.length} files the database names were in neither place (already lost here): ${result.missing.slice(0, 5).join(", ")}${result.missing.length > 5 ? ", …" : ""}; thumbnails and posters among them: ${socialctl(opts)} media rebuild-derived`,
              ]
            : []),
          result.switched
            ? `files.s3.bucket is now ${bucket}: the next start serves files from the bucket (every node needs the same files.s3.* settings and keys).`
            : `files.s3.bucket already named ${bucket}: nothing switched.`,
          `The files under ${resolveDataDir(opts.dataDir)}/files are left as they were${result.unreferenced ? ` (${result.unreferenced} of them no upload names, not copied)` : ""}: remove them once the instance serves from the bucket; backups no longer include them.`,
        ].join("\n"),
      );
    });
}
