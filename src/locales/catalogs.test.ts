import { describe, expect, test } from "bun:test";
import { acceptedLanguages, LANGUAGES, pickLanguage, type Language } from "./languages";
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

/** Each language's texts as one tree: its catalog, with its admin area's texts in `app.admin` where the app shows them. */
const catalogs = Object.fromEntries(
  await Promise.all(
    Object.entries(LANGUAGES).map(async ([code, entry]) => {
      const { app, server } = (await entry.load()).default as { app: Tree; server: Tree };
      const admin = (await entry.loadAdmin()).default as Tree;
      expect(app.admin).toBeUndefined();
      return [code, { app: { ...app, admin }, server } as Tree] as const;
    }),
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

test("Russian plurals and numbers come from Intl", () => {
  const counted = wording(
    {
      counted_one: "{{count, number}} пост",
      counted_few: "{{count, number}} поста",
      counted_many: "{{count, number}} постов",
      counted_other: "{{count, number}} поста",
    },
    "ru",
  );
  expect([1, 2, 5, 21, 1.5, 12345].map((count) => counted("counted", { count }))).toEqual([
    "1 пост",
    "2 поста",
    "5 постов",
    "21 пост",
    "1,5 поста",
    "12\u00a0345 постов",
  ]);
});

test("wording: values by name, a value not given left for an element, a missing plural form falls back to _other, an unknown key is itself", () => {
  const word = wording(
    { a: { hi: "Hi {{name}}, {{link}}", n_one: "one", n_other: "{{count}} many", plain: "Plain" } },
    "en",
  );
  expect(word("a.hi", { name: "Ann" })).toBe("Hi Ann, {{link}}");
  expect(word("a.n", { count: 1 })).toBe("one");
  expect(word("a.n", { count: 3 })).toBe("3 many");
  expect(wording({ n_other: "{{count}} x" }, "ru")("n", { count: 1 })).toBe("1 x");
  expect(word("a.plain", { count: 2 })).toBe("Plain");
  expect(word("a.missing")).toBe("a.missing");
  const when = wording({ at: "с {{when, datetime}}" }, "ru");
  const options: Intl.DateTimeFormatOptions = { day: "numeric", month: "long", timeZone: "UTC" };
  expect(when("at", { when: new Date(Date.UTC(2026, 10, 29)), formatParams: { when: options } })).toBe("с 29 ноября");
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
