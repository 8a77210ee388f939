import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ErrorCatalog } from "./error-catalog";
import { ERROR_CATALOGS, errorWording, placeholdersOf } from "./error-wording";
import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from "./languages";

const ROOT = join(import.meta.dir, "../..");

/**
 * The calls whose argument at the index is an error text a Client API answer may carry. A
 * text built elsewhere and passed in a variable is not seen: raise errors with their text
 * written out in the call, so every one is found here.
 */
const MESSAGE_ARGUMENT: Record<string, number> = {
  fieldError: 1,
  validationError: 1,
  notFound: 0,
  forbidden: 0,
  unauthorized: 0,
  permissionDenied: 0,
  invoiceInvalid: 0,
  busy: 0,
  exclusive: 0,
  requireRight: 2,
  refuseSelf: 2,
  AppError: 2,
  // the local helpers that gather field errors before raising them
  add: 1,
  bad: 1,
  refuse: 0,
};
/** Files whose plain Errors are error texts too: the config values' checks, which the admin settings answer with. */
const ERROR_FILES = new Set(["src/config/keys.ts"]);
/** Files whose every literal is an error text (the schema check's messages). */
const TEXT_FILES = new Set(["src/http/schema-errors.ts"]);
/** One-word texts (lib/errors.ts's helpers' defaults), which the scan would take for values. */
const DEFAULT_TEXTS = ["Forbidden", "Unauthorized"];

/** The string and template literals in SOURCE (a piece of code), each `${…}` in them as `{{}}`. */
function literalsOf(source: string): string[] {
  const found: string[] = [];
  for (let i = 0; i < source.length; i++) {
    const quote = source[i];
    if (quote !== '"' && quote !== "`" && quote !== "'") continue;
    let text = "";
    let j = i + 1;
    for (; j < source.length && source[j] !== quote; j++) {
      if (source[j] === "\\") text += source[++j];
      else if (quote === "`" && source[j] === "$" && source[j + 1] === "{") {
        let depth = 0;
        for (j++; j < source.length; j++) {
          if (source[j] === "{") depth++;
          else if (source[j] === "}" && --depth === 0) break;
        }
        text += "{{}}";
      } else text += source[j];
    }
    found.push(text);
    i = j;
  }
  return found;
}

/** The arguments of the call whose "(" is at OPEN in SOURCE, as source text. */
function argumentsAt(source: string, open: number): string[] {
  const args: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open; i < source.length; i++) {
    const c = source[i]!;
    if (c === '"' || c === "`" || c === "'") {
      const quote = c;
      for (i++; i < source.length && source[i] !== quote; i++) {
        if (source[i] === "\\") i++;
        else if (quote === "`" && source[i] === "$" && source[i + 1] === "{") {
          let inner = 0;
          for (i++; i < source.length; i++) {
            if (source[i] === "{") inner++;
            else if (source[i] === "}" && --inner === 0) break;
          }
        }
      }
    } else if ("([{".includes(c)) depth++;
    else if (")]}".includes(c)) {
      if (--depth === 0) {
        args.push(source.slice(start, i));
        return args;
      }
    } else if (c === "," && depth === 1) {
      args.push(source.slice(start, i));
      start = i + 1;
    }
  }
  return args;
}

/** Every English error text the server's code raises for the Client API, with `{{}}` for what it fills in. */
function raisedTexts(): Set<string> {
  const texts = new Set(DEFAULT_TEXTS);
  // a text is words, not a value compared in a condition ("quiz") or a message's assembly ("{{}}: {{}}")
  const add = (text: string) => {
    if (text.includes(" ") && /[a-z]/i.test(text.replaceAll("{{}}", ""))) texts.add(text);
  };
  const calls = new RegExp(`\\b(${Object.keys(MESSAGE_ARGUMENT).join("|")})\\(`, "g");
  const errorCalls = new RegExp(`\\b(${[...Object.keys(MESSAGE_ARGUMENT), "Error"].join("|")})\\(`, "g");
  for (const file of new Glob("src/**/*.ts").scanSync(ROOT)) {
    if (file.endsWith(".test.ts") || /^src\/(web|web-tests|testing|botapi|locales)\//.test(file)) continue;
    const source = readFileSync(join(ROOT, file), "utf8");
    if (TEXT_FILES.has(file)) {
      const code = source.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "").replace(/^import .*$/gm, "");
      for (const text of literalsOf(code)) add(text);
      continue;
    }
    for (const match of source.matchAll(ERROR_FILES.has(file) ? errorCalls : calls)) {
      const args = argumentsAt(source, match.index! + match[0].length - 1);
      const message = args[MESSAGE_ARGUMENT[match[1]!] ?? 0];
      if (message) for (const text of literalsOf(message)) add(text);
    }
    // the field messages of validation errors: `fieldErrors: { body: ["is too large"] }`,
    // `errors.email = ["is already registered"]`, `(errors[field] ??= []).push("is required")`
    const gathered =
      /\bfieldErrors:\s*\{|\bvalidationError\(\{|\berrors(?:\.\w+|\[[^\]]+\])\s*=\s*\[|\?\?= \[\]\)\.push\(/g;
    for (const match of source.matchAll(gathered))
      for (const text of literalsOf(argumentsAt(source, match.index! + match[0].length - 1).join(","))) add(text);
    // what the checks named *Problem (usernameProblem, passwordProblem…) answer: a field's message or null
    for (const match of source.matchAll(
      /\b(?:function \w+Problems?\([^)]*\)[^{]*\{|const \w+Problems? = \([^)]*\)[^=]*=>\s*[{(]?)/g,
    )) {
      const open = match.index! + match[0].length - 1;
      const body = "{(".includes(source[open]!)
        ? argumentsAt(source, open).join(",")
        : source.slice(open, source.indexOf(";\n", open));
      for (const text of literalsOf(body)) add(text);
    }
  }
  return texts;
}

const shape = (text: string) => text.replace(/\{\{\s*\w*\s*\}\}/g, "{{}}");
const raised = raisedTexts();

test("the code's error texts are found (the scan sees the calls it should)", () => {
  for (const text of ["is incorrect", "Wrong e-mail or password", "must be at most {{}} characters", "is required"])
    expect(raised).toContain(text);
  expect(raised.size).toBeGreaterThan(200);
});

describe("every language but English words every error text the code raises, and no other", () => {
  for (const code of Object.keys(LANGUAGES) as Language[]) {
    if (code === DEFAULT_LANGUAGE) continue;
    test(code, async () => {
      const load = ERROR_CATALOGS[code];
      expect(load).toBeDefined();
      const catalog: ErrorCatalog = (await load!()).default;
      const worded = new Set(Object.keys(catalog).map(shape));
      // a text with a number written in ("must be at least 8 characters") is worded by its pattern
      const word = errorWording(catalog, code);
      const unworded = [...raised].filter((text) => !worded.has(text) && (text.includes("{{") || !word(text)));
      expect(unworded.sort()).toEqual([]);
      expect([...worded].filter((text) => !raised.has(text)).sort()).toEqual([]);
      for (const [english, translation] of Object.entries(catalog)) {
        const forms = typeof translation === "string" ? [translation] : Object.values(translation).slice(1);
        for (const form of forms)
          expect([english, placeholdersOf(form).sort()]).toEqual([english, placeholdersOf(english).sort()]);
        if (typeof translation !== "string") {
          expect(placeholdersOf(english)).toContain(translation.count);
          for (const form of new Intl.PluralRules(code).resolvedOptions().pluralCategories)
            expect([english, form, typeof translation[form]]).toEqual([english, form, "string"]);
        }
      }
    });
  }
});

describe("an error text worded from a catalog", () => {
  const word = errorWording(
    {
      "is incorrect": "не подходит",
      "holds at most {{max}}": "вмещает не больше {{max}}",
      "holds at most {{max}} files": {
        count: "max",
        one: "вмещает {{max}} файл",
        few: "вмещает {{max}} файла",
        many: "вмещает {{max}} файлов",
        other: "вмещает {{max}} файла",
      },
      "{{name}} cannot be added by you": "вы не можете добавить {{name}}",
    },
    "ru",
  );
  test("as it is, or by its pattern with the values in their places", () => {
    expect(word("is incorrect")).toBe("не подходит");
    expect(word("@ada cannot be added by you")).toBe("вы не можете добавить @ada");
  });
  test("the most specific pattern wins, and a number picks the plural form", () => {
    expect(word("holds at most 5 files")).toBe("вмещает 5 файлов");
    expect(word("holds at most 21 files")).toBe("вмещает 21 файл");
    expect(word("holds at most 3 files")).toBe("вмещает 3 файла");
    expect(word("holds at most 5 things")).toBe("вмещает не больше 5 things");
  });
  test("a text the catalog lacks is not worded", () => {
    expect(word("is something new")).toBeUndefined();
  });
});
