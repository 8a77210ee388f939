/**
 * The catalogs' syntax (i18next's, as src/locales/en.ts describes it) worded without i18next:
 * the web app's first screen has a JavaScript budget that i18next alone would take a quarter
 * of, and the app needs only this much of it. The server keeps i18next (translate.ts);
 * catalogs.test.ts checks that both word every text of every catalog alike.
 */

export type CatalogTree = { [key: string]: string | CatalogTree };

export interface Wording {
  /** the text of KEY ("feed.title", in the catalog's `app` block) with VALUES filled in */
  (key: string, values?: Record<string, unknown>): string;
}

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
 * formats it with Intl.NumberFormat. A value not given stays `{{name}}` (Sentence fills such
 * places with elements); an unknown key is returned as it is.
 */
export function wording(tree: CatalogTree, language: string): Wording {
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
      return format === "number" ? numbers.format(Number(value)) : String(value);
    });
  };
}
