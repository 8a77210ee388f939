// Preloaded by `bun test` (bunfig.toml): a global afterAll runs once, after every test file.
import { afterAll } from "bun:test";
import { runEndOfRun } from "./end-of-run";

afterAll(runEndOfRun);
