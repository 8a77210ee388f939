import { describe, expect, test } from "bun:test";
import { acceptedLanguages, DEFAULT_LANGUAGE, LANGUAGES, pickLanguage, type Language } from "./languages";
import { createTranslator } from "./translate";
import { wording } from "./word";

type Tree = { [key: string]: string | Tree };
const PLURAL = /_(zero|one|two|few|many|other)$/;

/** Every leaf key, plural forms folded into their base key ("posts_one" → "posts"). */
function leaves(tree: Tree, prefix = ""): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  for (const [key, value] of Object.entries(tree)) {
    if (typeof value === "string") {
      const form = PLURAL.exec(key)?.[1];
      const base = prefix + key.replace(PLURAL, "");
      if (!found.has(base)) found.set(base, new Set());
      if (form) found.get(base)!.add(form);
    } else for (const [k, v] of leaves(value, `${prefix}${key}.`)) found.set(k, v);
  }
  return found;
}

const catalogs = Object.fromEntries(
  await Promise.all(
    Object.entries(LANGUAGES).map(async ([code, entry]) => [code, (await entry.load()).default as Tree] as const),
  ),
) as Record<Language, Tree>;
const source = leaves(catalogs.en);

describe("every language translates the whole English catalog", () => {
  for (const code of Object.keys(LANGUAGES) as Language[]) {
    test(code, () => {
      const keys = leaves(catalogs[code]);
      const forms = new Intl.PluralRules(code).resolvedOptions().pluralCategories;
      expect([...source.keys()].filter((key) => !keys.has(key))).toEqual([]);
      expect([...keys.keys()].filter((key) => !source.has(key))).toEqual([]);
      // a counted text has exactly the forms the language's plural rules choose between
      const wrongForms = [...source]
        .filter(([, sourceForms]) => sourceForms.size > 0)
        .filter(([key]) => [...forms].sort().join() !== [...keys.get(key)!].sort().join())
        .map(([key]) => `${key}: ${[...keys.get(key)!].join("/")}`);
      expect(wrongForms).toEqual([]);
    });
  }
});

test("values a text names are the ones English names (no {{name}} lost or misspelt)", () => {
  const names = (text: string) => [...text.matchAll(/\{\{\s*(\w+)/g)].map((m) => m[1]).sort();
  const flat = (tree: Tree, prefix = ""): Array<[string, string]> =>
    Object.entries(tree).flatMap(([k, v]) =>
      typeof v === "string" ? [[prefix + k, v] as [string, string]] : flat(v, `${prefix}${k}.`),
    );
  const english = new Map(flat(catalogs.en).map(([k, v]) => [k.replace(PLURAL, ""), names(v)]));
  for (const code of Object.keys(LANGUAGES) as Language[]) {
    const wrong = flat(catalogs[code])
      .filter(([key, text]) => {
        const base = key.replace(PLURAL, "");
        // a plural form may leave the count out ("one post" as "a post")
        const expected = (english.get(base) ?? []).filter((n) => !(PLURAL.test(key) && n === "count"));
        const own = names(text).filter((n) => !(PLURAL.test(key) && n === "count"));
        return expected.join() !== own.join();
      })
      .map(([key]) => `${code}: ${key}`);
    expect(wrong).toEqual([]);
  }
});

test("Russian plurals and numbers come from Intl", async () => {
  const translator = await createTranslator(["ru"], "ru");
  translator.addResourceBundle("ru", "app", {
    counted_one: "{{count, number}} пост",
    counted_few: "{{count, number}} поста",
    counted_many: "{{count, number}} постов",
    counted_other: "{{count, number}} поста",
  });
  const counted = (count: number) => (translator.t as (key: string, options: object) => string)("counted", { count });
  expect([1, 2, 5, 21, 1.5, 12345].map(counted)).toEqual([
    "1 пост",
    "2 поста",
    "5 постов",
    "21 пост",
    "1,5 поста",
    "12\u00a0345 постов",
  ]);
});

describe("choosing a language", () => {
  test("the first supported tag of a preference list", () => {
    expect(pickLanguage(["de-DE", "ru-RU", "en"])).toBe("ru");
    expect(pickLanguage(["en-GB"])).toBe("en");
    expect(pickLanguage(["de", "fr"])).toBeNull();
  });
  test("Accept-Language by weight, then order", () => {
    expect(acceptedLanguages("de;q=0.5, ru-RU, en;q=0.8, *;q=0.1")).toEqual(["ru-RU", "en", "de"]);
    expect(acceptedLanguages("")).toEqual([]);
    expect(pickLanguage(acceptedLanguages("fr-CH, fr;q=0.9, ru;q=0.8"))).toBe("ru");
  });
});

test("the web app's wording (word.ts) words every text as i18next does", async () => {
  const codes = Object.keys(LANGUAGES) as Language[];
  const translator = await createTranslator(codes, DEFAULT_LANGUAGE);
  const differ: string[] = [];
  for (const code of codes) {
    for (const ns of ["app", "server"] as const) {
      const tree = (catalogs[code][ns] ?? {}) as Tree;
      const ours = wording(tree, code);
      const theirs = translator.getFixedT(code, ns) as unknown as (key: string, values: object) => string;
      const names = [...new Set([...JSON.stringify(tree).matchAll(/\{\{\s*(\w+)/g)].map((m) => m[1]!))].filter(
        (n) => n !== "count",
      );
      const numeric = new Set([...JSON.stringify(tree).matchAll(/\{\{\s*(\w+)\s*,\s*number/g)].map((m) => m[1]!));
      for (const [key, forms] of leaves(tree)) {
        // every value named anywhere, and counts that reach each plural form; one value left out
        for (const count of forms.size ? [0, 1, 2, 5, 21, 1.5, 12345] : [undefined]) {
          const values: Record<string, unknown> = Object.fromEntries(
            names.slice(1).map((n) => [n, numeric.has(n) ? 1234.5 : `<${n}>`]),
          );
          if (count !== undefined) values.count = count;
          if (ours(key, values) !== theirs(key, values)) differ.push(`${code} ${ns}.${key} ${JSON.stringify(values)}`);
        }
      }
    }
  }
  expect(differ).toEqual([]);
  // every text of every catalog, each plural several times over: more than the default time on a busy machine
}, 20_000);
