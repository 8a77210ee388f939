/**
 * The server's error texts in other languages. English is their source, written where each
 * error is raised (`fieldError("password", "is incorrect")`): a language's catalog
 * (errors-ru.ts) maps each English text to its own, `{{name}}` standing for what the code fills
 * in (a number, a username). Only the Client API's answers are worded so, after the request's
 * Accept-Language; the Bot API keeps Telegram's English, which bot libraries match on.
 */

import type { ErrorCatalog, ErrorTranslation } from "./error-catalog";
import type { Language } from "./languages";

/** Each language but English, and its error catalog: loaded when a request first asks for that language. */
export const ERROR_CATALOGS: Partial<Record<Language, () => Promise<{ default: ErrorCatalog }>>> = {
  ru: () => import("./errors-ru"),
};

const PLACEHOLDER = /\{\{\s*(\w+)\s*\}\}/g;

/** The names of TEXT's placeholders, in order. */
export const placeholdersOf = (text: string): string[] => [...text.matchAll(PLACEHOLDER)].map((m) => m[1]!);

/** An error message in one language; undefined when the catalog has no text for it. */
export type ErrorWording = (message: string) => string | undefined;

/**
 * Words English error messages with CATALOG: a text without placeholders is looked up as it is,
 * one with placeholders is matched as a pattern (the most specific first: the one with the most
 * fixed text), and the values it matched fill the translation's placeholders of the same name.
 */
export function errorWording(catalog: ErrorCatalog, language: string): ErrorWording {
  const exact = new Map<string, ErrorTranslation>();
  const patterns: Array<{ pattern: RegExp; names: string[]; translation: ErrorTranslation; fixed: number }> = [];
  for (const [english, translation] of Object.entries(catalog)) {
    const names = placeholdersOf(english);
    if (names.length === 0) {
      exact.set(english, translation);
      continue;
    }
    const fixedParts = english.split(PLACEHOLDER).filter((_, i) => i % 2 === 0);
    const source = fixedParts.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("(.+?)");
    patterns.push({
      pattern: new RegExp(`^${source}$`, "s"),
      names,
      translation,
      fixed: fixedParts.join("").length,
    });
  }
  patterns.sort((a, b) => b.fixed - a.fixed);
  const plurals = new Intl.PluralRules(language);
  const fill = (translation: ErrorTranslation, values: Record<string, string>) => {
    const text =
      typeof translation === "string"
        ? translation
        : (translation[plurals.select(Number(values[translation.count]))] ?? translation.other);
    return text.replace(PLACEHOLDER, (whole, name: string) => values[name] ?? whole);
  };
  return (message) => {
    const found = exact.get(message);
    if (found !== undefined) return fill(found, {});
    for (const { pattern, names, translation } of patterns) {
      const match = pattern.exec(message);
      if (!match) continue;
      return fill(translation, Object.fromEntries(names.map((name, i) => [name, match[i + 1]!])));
    }
    return undefined;
  };
}

const wordings = new Map<Language, Promise<ErrorWording>>();

/** LANGUAGE's error wording, made once per process; null for English (the source) or a language without a catalog. */
export function errorWordingFor(language: Language): Promise<ErrorWording> | null {
  const load = ERROR_CATALOGS[language];
  if (!load) return null;
  let found = wordings.get(language);
  if (!found) wordings.set(language, (found = load().then((catalog) => errorWording(catalog.default, language))));
  return found;
}
