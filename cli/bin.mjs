#!/usr/bin/env node
// `npx socialctl …` runs the CLI from source with the Bun that npm installed.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const bun = join(dirname(require.resolve("bun/package.json")), "bin", "bun.exe");
const result = spawnSync(bun, [join(here, "index.ts"), ...process.argv.slice(2)], { stdio: "inherit" });
process.exit(result.status ?? 1);
