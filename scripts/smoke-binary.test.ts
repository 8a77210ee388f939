import { expect, test } from "bun:test";
import { smokeBinary } from "./smoke-binary";

// Builds the binary and runs it from an empty folder (about 10 s): only when SMOKE_BINARY=1.
test.skipIf(process.env.SMOKE_BINARY !== "1")("the compiled binary copied alone makes a thumbnail", async () => {
  await expect(smokeBinary({ build: true })).resolves.toBeUndefined();
}, 180_000);
