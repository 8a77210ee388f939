import type { Command } from "commander";
import { rebuildDerived } from "../../src/ops/rebuild-derived";
import { emit } from "../output";
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
}
