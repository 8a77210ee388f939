import i18next, { type i18n } from "i18next";
import type { Catalog } from "./en";
import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from "./languages";

declare module "i18next" {
  interface CustomTypeOptions {
    defaultNS: "app";
    resources: Catalog;
  }
}

/**
 * An i18next instance holding the given languages' catalogs, English as the fallback when it is
 * loaded. The web app loads only the language it shows (a catalog is its own chunk); the
 * server loads every one.
 */
export async function createTranslator(languages: readonly Language[], language: Language): Promise<i18n> {
  const loaded = await Promise.all(
    languages.map(async (code) => [code, (await LANGUAGES[code].load()).default] as const),
  );
  const instance = i18next.createInstance();
  await instance.init({
    lng: language,
    fallbackLng: languages.includes(DEFAULT_LANGUAGE) ? DEFAULT_LANGUAGE : false,
    ns: ["app", "server"],
    defaultNS: "app",
    resources: Object.fromEntries(loaded),
    // Preact escapes what it renders, and mail bodies are escaped where they become HTML
    interpolation: { escapeValue: false },
    returnNull: false,
    initAsync: false,
  });
  return instance;
}
