import { expect, test } from "bun:test";
import { configKeys } from "./keys";

// The config table of docs/cli.md is the operator's reference: every key the service reads is in it.
test("docs/cli.md documents every config key", async () => {
  const guide = await Bun.file(new URL("../../docs/cli.md", import.meta.url)).text();
  const undocumented = Object.keys(configKeys).filter((key) => {
    const group = `\`${key.split(".")[0]}.*\``;
    return !guide.includes(`\`${key}\``) && !(key.includes(".") && guide.includes(group));
  });
  expect(undocumented).toEqual([]);
});
