import { expect, test } from "bun:test";
import { configKeys } from "./keys";

// The README's config table is the operator's reference: every key the service reads is in it.
test("README documents every config key", async () => {
  const readme = await Bun.file(new URL("../../README.md", import.meta.url)).text();
  const undocumented = Object.keys(configKeys).filter((key) => {
    const group = `\`${key.split(".")[0]}.*\``;
    return !readme.includes(`\`${key}\``) && !(key.includes(".") && readme.includes(group));
  });
  expect(undocumented).toEqual([]);
});
