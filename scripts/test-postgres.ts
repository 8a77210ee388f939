import { join } from "node:path";

/**
 * `bun scripts/test.ts postgres …`: the storage-dependent test files again, on PostgreSQL (the
 * `postgres` part of `npm test`; which files and why in scripts/test-files.ts). `--list` prints
 * the selection and the exceptions; file arguments replace the selection.
 */
const proc = Bun.spawn(["bun", join(import.meta.dir, "test.ts"), "postgres", ...process.argv.slice(2)], {
  stdio: ["inherit", "inherit", "inherit"],
});
process.exit(await proc.exited);
