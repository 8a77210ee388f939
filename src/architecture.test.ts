import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { importCycles, importGraph, upwardImports } from "../scripts/imports";

/*
 * The shape of the code, checked like behaviour: `bun scripts/imports.ts` prints the same
 * findings. Layers and the reasons behind them are in scripts/imports.ts.
 */
describe("imports", () => {
  const graph = importGraph();

  test("no import cycles", () => {
    expect(importCycles(graph)).toEqual([]);
  });

  test("imports run down the layers (at most 4 exceptions, each named here)", () => {
    const allowed: string[] = [];
    expect(upwardImports(graph)).toEqual(allowed);
  });

  test("the walker sees the imports it checks", () => {
    // a guard against a regex that silently matches nothing
    expect(graph.get("src/main.ts")).toContain("src/wiring.ts");
    expect(graph.get("src/wiring.ts")).toContain("src/app.ts");
    expect(graph.size).toBeGreaterThan(200);
  });
});

test("per-App state lives in app.services, not in module WeakMaps keyed by the App", () => {
  const root = join(import.meta.dir, "..");
  const offenders = [...importGraph().keys()].filter((file) =>
    /WeakMap<\s*App\b/.test(readFileSync(join(root, file), "utf8")),
  );
  expect(offenders).toEqual([]);
});

describe("the domain speaks domain, the surfaces speak wire", () => {
  const root = join(import.meta.dir, "..");
  const graph = importGraph();
  const domainFiles = [...graph.keys()].filter((file) => file.startsWith("src/domain/"));

  test("domain code publishes domain events (app.hooks.publish), never a surface's realtime payloads", () => {
    expect(domainFiles.length).toBeGreaterThan(50);
    const offenders = domainFiles.filter((file) =>
      /\bevents\.publish\s*\(/.test(readFileSync(join(root, file), "utf8")),
    );
    expect(offenders).toEqual([]);
  });

  test("the Bot API translates: its files call domain functions and build no query of their own", () => {
    const botApi = [...graph.keys()].filter((file) => file.startsWith("src/botapi/"));
    expect(botApi.length).toBeGreaterThan(20);
    const offenders = botApi.filter((file) =>
      /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|transaction)\(/.test(
        readFileSync(join(root, file), "utf8"),
      ),
    );
    expect(offenders).toEqual([]);
  });

  test("one transaction style: a domain write runs in a Scope (inTransaction), never a raw transaction", () => {
    const offenders = domainFiles.filter((file) =>
      /\.transaction\(\s*\)|\bstorage\.transaction\(/.test(readFileSync(join(root, file), "utf8")),
    );
    expect(offenders).toEqual([]);
  });

  test("the two surfaces stand apart: the Client API and the Bot API never import each other", () => {
    const surfaceOf = (file: string) => /^src\/(clientapi|botapi)\//.exec(file)?.[1];
    const offenders = [...graph].flatMap(([file, deps]) =>
      deps
        .filter((dep) => surfaceOf(file) && surfaceOf(dep) && surfaceOf(file) !== surfaceOf(dep))
        .map((dep) => `${file} → ${dep}`),
    );
    expect(offenders).toEqual([]);
  });

  test("domain code imports no surface: not its serializers, not the realtime wire event list", () => {
    const surface = /^src\/(clientapi|botapi|realtime)\//;
    const offenders = domainFiles.flatMap((file) =>
      graph
        .get(file)!
        .filter((dep) => surface.test(dep))
        .map((dep) => `${file} → ${dep}`),
    );
    expect(offenders).toEqual([]);
  });
});

test("one cursor: lists page with src/lib/paging.ts and take the cursor query of src/clientapi/input.ts", () => {
  const root = join(import.meta.dir, "..");
  // (the languages' error catalogs word the message, they do not raise it)
  const defining = [...importGraph().keys()].filter(
    (file) =>
      !file.startsWith("src/locales/") &&
      /is not a valid cursor|cursor: t\./.test(readFileSync(join(root, file), "utf8")),
  );
  expect(defining.sort()).toEqual(["src/clientapi/input.ts", "src/lib/paging.ts"]);
});

describe("one cache layer: src/cache owns caching", () => {
  const root = join(import.meta.dir, "..");
  const graph = importGraph();
  const outside = [...graph.keys()].filter((file) => !file.startsWith("src/cache/"));

  test("a cache built on src/cache's classes is made in a file the registry names", async () => {
    const { CACHES } = await import("./cache/registry");
    const homes = new Set(CACHES.map((c) => c.home));
    const mechanisms = /^src\/cache\/(by-version|chat-list-stamps|stamps|stamped-answers)\.ts$/;
    // src/testing makes empty ones, to read afresh what a cache would answer
    const builders = outside.filter(
      (file) =>
        !file.startsWith("src/testing/") &&
        graph.get(file)!.some((dep) => mechanisms.test(dep)) &&
        /new (VersionedCache|CacheStamps|StampedAnswers|KeptAnswers)\b/.test(readFileSync(join(root, file), "utf8")),
    );
    expect(builders.length).toBeGreaterThan(5);
    expect(builders.filter((file) => !homes.has(file))).toEqual([]);
  });

  /**
   * Cache protocol outside src/cache: the old per-connection counters and the obligations they
   * put on writers and surfaces. What is left is named here, file by file, and only shrinks: each
   * belongs to a registered exception (src/cache/registry.ts) or to the storage that feeds it.
   */
  test("no cache protocol outside src/cache but the named remainder", () => {
    const protocol =
      /\b(writesConcernOnly|soleWrite|findPersonChatKept|writesTo|dataVersion|writeEpoch|WriteEpoch|WriteTeller|StatementTelling|GroupTelling)\b/g;
    const found = outside.flatMap((file) => {
      const words = new Set(readFileSync(join(root, file), "utf8").match(protocol) ?? []);
      return [...words].sort().map((word) => `${file}: ${word}`);
    });
    expect(found.sort()).toEqual(REMAINING_CACHE_PROTOCOL);
  });
});

/** See "no cache protocol outside src/cache but the named remainder". */
const REMAINING_CACHE_PROTOCOL: string[] = [];

describe("types once: the web app's API payload types come from the server's schemas", () => {
  const root = join(import.meta.dir, "..");
  const graph = importGraph();
  const read = (file: string) => readFileSync(join(root, file), "utf8");
  const webFiles = [...graph.keys()].filter((file) => file.startsWith("src/web/"));
  const TYPES = "src/web/lib/types.ts";

  test("only src/web/lib/types.ts reads src/contract, with type imports (no schema code in the bundle)", () => {
    expect(webFiles.length).toBeGreaterThan(50);
    const readers = webFiles.filter((file) => graph.get(file)!.some((dep) => dep.startsWith("src/contract/")));
    expect(readers).toEqual([TYPES]);
    const valueImports = read(TYPES)
      .split("\n")
      .filter((line) => /from "[./]*contract\//.test(line) && !/^import type /.test(line));
    expect(valueImports).toEqual([]);
  });

  test("no payload shape is declared by hand: src/web/lib/types.ts derives, and nothing else re-declares its names", () => {
    const types = read(TYPES);
    expect(types).not.toMatch(/\binterface\s/);
    const derived = [...types.matchAll(/^export type (\w+)/gm)].map((m) => m[1]!);
    expect(derived).toContain("Post");
    const schemaNames = [...graph.keys()]
      // the resources (schema.ts holds the building blocks, such as the Page factory)
      .filter((file) => file.startsWith("src/contract/") && file !== "src/contract/schema.ts")
      .flatMap((file) => [...read(file).matchAll(/^export const (\w+)/gm)].map((m) => m[1]!));
    expect(schemaNames).toContain("Message");
    const names = new Set([...derived, ...schemaNames]);
    const offenders = webFiles
      .filter((file) => file !== TYPES)
      .flatMap((file) =>
        [...read(file).matchAll(/\b(?:interface|type)\s+(\w+)\s*(?:<[^>]*>\s*)?(?:=|\{|extends)/g)]
          .filter((m) => names.has(m[1]!))
          .map((m) => `${file}: ${m[1]}`),
      );
    expect(offenders).toEqual([]);
  });
});
