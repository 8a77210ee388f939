import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, parseConfigValue, setConfigValue, storeConfigValues } from "./index";
import { parseSettingsBundle } from "./transfer";

const dir = mkdtempSync(join(tmpdir(), "socialctl-identity-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the instance's identity keys", () => {
  test("rules are a JSON array of strings: stored as a list, read back as the same list at the next start", () => {
    expect(setConfigValue(dir, "instance.rules", '[" Be kind ", "", "No spam"]')).toEqual(["Be kind", "No spam"]);
    expect(loadConfig(dir)["instance.rules"]).toEqual(["Be kind", "No spam"]);
    storeConfigValues(dir, { "instance.rules": ["Only this"] });
    expect(loadConfig(dir)["instance.rules"]).toEqual(["Only this"]);
    // carried to another node by config export / import
    const bundle = JSON.stringify({
      format: "socialctl-settings",
      version: 1,
      config: { "instance.rules": ["Carried"], "instance.name": "Harbour" },
      secret: "s".repeat(43),
    });
    expect(parseSettingsBundle(bundle).config).toEqual({ "instance.rules": ["Carried"], "instance.name": "Harbour" });
  });

  test("bad values name the key and what is wrong", () => {
    expect(() => parseConfigValue("instance.rules", "be nice")).toThrow(
      'config key "instance.rules" must be a JSON array of strings',
    );
    expect(() => parseConfigValue("instance.rules", "[1, 2]")).toThrow("must be a JSON array of strings");
    expect(() => parseConfigValue("instance.rules", JSON.stringify(Array(51).fill("r")))).toThrow(
      "must have at most 50 items",
    );
    expect(() => parseConfigValue("instance.name", "  ")).toThrow('config key "instance.name" must not be empty');
    expect(() => parseConfigValue("instance.name", "n".repeat(61))).toThrow("must be at most 60 characters");
    expect(parseConfigValue("instance.name", "  Harbour Town ")).toBe("Harbour Town");
    expect(parseConfigValue("instance.rules", "")).toEqual([]);
  });
});
