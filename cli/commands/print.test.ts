import { describe, expect, test } from "bun:test";
import { runCli } from "../../src/testing/cli";
import { TEMPLATES } from "./print";

/** The fenced block of LANG that follows HEADING in docs/operations.md. */
async function operationsBlock(heading: string, lang: string): Promise<string> {
  const guide = await Bun.file(new URL("../../docs/operations.md", import.meta.url)).text();
  const from = guide.indexOf(heading);
  expect(from).toBeGreaterThanOrEqual(0);
  const open = guide.indexOf("```" + lang + "\n", from);
  const start = open + lang.length + 4;
  return guide.slice(start, guide.indexOf("\n```", start) + 1);
}

describe("socialctl print", () => {
  test.each([
    ["systemd", "## systemd", "ini"],
    ["caddy", "## Behind a TLS reverse proxy", "caddy"],
    ["nginx", "## Behind a TLS reverse proxy", "nginx"],
  ])("%s prints exactly the example of docs/operations.md", async (name, heading, lang) => {
    const run = await runCli(["print", name]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(await operationsBlock(heading, lang));
  });

  test("--json gives the text in one document; an unknown name is one line", async () => {
    const json = await runCli(["--json", "print", "nginx"]);
    expect(json.json).toEqual({ name: "nginx", description: TEMPLATES.nginx.description, text: TEMPLATES.nginx.text });
    const bad = await runCli(["print", "apache"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe("socialctl: unknown file apache: one of systemd, caddy, nginx\n");
  });
});
