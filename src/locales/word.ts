/**
 * Words the catalogs' texts, on the server and in the web app alike. The syntax (en.ts
 * describes it) is i18next's, so translators and tools that know it can read the catalogs; the
 * wording is this small because the web app's first screen has a JavaScript budget that
 * i18next alone would take a quarter of, and the app needs only this much of it.
 */

export type CatalogTree = { [key: string]: string | CatalogTree };

type PluralForm = "zero" | "one" | "two" | "few" | "many" | "other";
type WithoutPlural<K extends string> = K extends `${infer Base}_${PluralForm}` ? Base : K;

/** The keys of a catalog block: "feed.title"; a counted text's forms ("posts_one", "posts_other") as "posts". */
export type CatalogKey<T> = {
  [K in keyof T & string]: T[K] extends string ? WithoutPlural<K> : `${K}.${CatalogKey<T[K]>}`;
}[keyof T & string];

/** The text of KEY with VALUES filled in; a numeric `count` chooses the plural form. */
export type Wording<Key extends string = string> = (key: Key, values?: Record<string, unknown>) => string;

function lookup(tree: CatalogTree, path: string): string | undefined {
  let node: string | CatalogTree | undefined = tree;
  for (const part of path.split(".")) {
    if (typeof node !== "object") return undefined;
    node = node[part];
  }
  return typeof node === "string" ? node : undefined;
}

/**
 * Words TREE's texts in LANGUAGE: a numeric `count` picks the plural form the language's
 * Intl.PluralRules choose (`key_one`, `key_few`…), `{{name}}` takes a value, `{{name, number}}`
 * formats it with Intl.NumberFormat and `{{name, datetime}}` a Date with Intl.DateTimeFormat
 * (options in `formatParams.name`, as i18next takes them). A value not given stays `{{name}}` (Sentence fills such
 * places with elements); an unknown key is returned as it is.
 */
export function wording<Key extends string = string>(tree: CatalogTree, language: string): Wording<Key> {
  const plurals = new Intl.PluralRules(language);
  const numbers = new Intl.NumberFormat(language);
  return (key, values = {}) => {
    const count = values.count;
    const text =
      (typeof count === "number" &&
        (lookup(tree, `${key}_${plurals.select(count)}`) ?? lookup(tree, `${key}_other`))) ||
      lookup(tree, key);
    if (text === undefined) return key;
    return text.replace(/\{\{\s*(\w+)\s*(?:,\s*(\w+)\s*)?\}\}/g, (whole, name: string, format?: string) => {
      const value = values[name];
      if (value === undefined) return whole;
      if (format === "number" && typeof value === "number") return numbers.format(value);
      if (format === "datetime" && value instanceof Date) {
        const options = (values.formatParams as Record<string, Intl.DateTimeFormatOptions> | undefined)?.[name];
        return new Intl.DateTimeFormat(language, options).format(value);
      }
      return String(value);
    });
  };
}
