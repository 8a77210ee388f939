import type { App } from "../app";

/**
 * Which requests get an access line in the log (`log.requests`): every one; a sample of at
 * most `log.requestsPerSecond` lines a second, the rest counted in one "request lines skipped"
 * line for that second, written when the next line is; or none but the failures. An answer of
 * 500 or more is always logged: at thousands of requests a second a line per request is most
 * of what the disk writes, a failure is what the operator looks for.
 */
export function requestLineGate(app: Pick<App, "config" | "log" | "clock">): (status: number) => boolean {
  let second = -1;
  let logged = 0;
  let skipped = 0;
  return (status) => {
    if (status >= 500) return true;
    const mode = app.config["log.requests"];
    if (mode === "all") return true;
    if (mode === "errors") return false;
    const now = Math.floor(app.clock.now() / 1000);
    if (now !== second) {
      if (skipped > 0)
        app.log.info("request lines skipped", { skipped, second: new Date(second * 1000).toISOString() });
      second = now;
      logged = 0;
      skipped = 0;
    }
    if (logged < app.config["log.requestsPerSecond"]) {
      logged++;
      return true;
    }
    skipped++;
    return false;
  };
}
