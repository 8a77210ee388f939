import type * as Clack from "@clack/prompts";
import { clack } from "./prompts/clack";
import type { GlobalOptions } from "./output";

const BAR_STEPS = 100;

export interface Progress {
  /** Progress of STEP (a phase name): DONE of TOTAL. A new step finishes the last one's bar. */
  update(step: string, done: number, total: number): void;
  /** Ends the running bar with MESSAGE (nothing when no step ever started). */
  stop(message: string): void;
  error(message: string): void;
}

const silent: Progress = { update() {}, stop() {}, error() {} };

/**
 * Progress bars (@clack/prompts) on a terminal, one per step, for long operator commands
 * (backup create and restore, media rebuild-derived, migrate). Nothing with --json or when
 * stdout is not a terminal, so scripts and logs get exactly the output they got before.
 */
export function progressBars(opts: GlobalOptions): Progress {
  if (opts.json || !process.stdout.isTTY) return silent;
  let bar: ReturnType<typeof Clack.progress> | null = null;
  let step = "";
  let at = 0;
  const finish = (message?: string) => {
    if (!bar) return;
    bar.advance(BAR_STEPS - at);
    bar.stop(message ?? step);
    bar = null;
  };
  return {
    update(next, done, total) {
      if (next !== step) {
        finish();
        step = next;
        at = 0;
        bar = clack().progress({ max: BAR_STEPS, style: "heavy" });
        bar.start(step);
      }
      const target = total > 0 ? Math.min(BAR_STEPS, Math.floor((done / total) * BAR_STEPS)) : 0;
      if (target > at && bar) {
        bar.advance(target - at, `${step} ${target}%`);
        at = target;
      }
    },
    stop: (message) => finish(message),
    error(message) {
      bar?.error(message);
      bar = null;
    },
  };
}
