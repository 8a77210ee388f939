import { describe, expect, test } from "bun:test";
import { endOfStart } from "./main";

// The compiled binary's start runs with the JIT held back, and ends a moment after the Client API is built (main.ts).
const wait = { graceMs: 60_000, afterBuildMs: 20 };

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await Bun.sleep(10);
}

describe("the end of the start", () => {
  test("comes after the Client API's build has settled, not with it, and once", async () => {
    let ends = 0;
    let built!: () => void;
    const clientApiBuilt = new Promise<void>((resolve) => (built = resolve));
    endOfStart(clientApiBuilt, () => ends++, wait);
    built();
    await clientApiBuilt;
    // the root maps the built routes in the turns after the build: still the start's run-once work
    await Promise.resolve();
    expect(ends).toBe(0);
    await until(() => ends > 0);
    expect(ends).toBe(1);
    await Bun.sleep(3 * wait.afterBuildMs);
    expect(ends).toBe(1);
  });

  test("comes after the grace period when no request builds the Client API, and again after a later build", async () => {
    let ends = 0;
    let built!: () => void;
    const clientApiBuilt = new Promise<void>((resolve) => (built = resolve));
    endOfStart(clientApiBuilt, () => ends++, { graceMs: 20, afterBuildMs: 20 });
    expect(ends).toBe(0);
    await until(() => ends > 0);
    expect(ends).toBe(1);
    built();
    await until(() => ends > 1);
    expect(ends).toBe(2);
  });
});
