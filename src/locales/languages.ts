/**
 * The languages the app and the server's texts come in. A language is its catalog file in this
 * folder (en.ts is the source every other one translates), its admin area's texts (admin-en.ts:
 * loaded with the admin screens only) and its line here.
 */
export const LANGUAGES = {
  en: { name: "English", load: () => import("./en"), loadAdmin: () => import("./admin-en") },
  ru: { name: "Русский", load: () => import("./ru"), loadAdmin: () => import("./admin-ru") },
} as const;

export type Language = keyof typeof LANGUAGES;
export const DEFAULT_LANGUAGE: Language = "en";

export const isLanguage = (code: unknown): code is Language =>
  typeof code === "string" && Object.hasOwn(LANGUAGES, code);

/**
 * The first supported language of a preference list (navigator.languages, or an
 * Accept-Language header's tags in order): "ru-RU" matches "ru".
 */
export function pickLanguage(preferred: readonly string[]): Language | null {
  for (const tag of preferred) {
    const base = tag.trim().split(/[-_;]/)[0]!.toLowerCase();
    if (isLanguage(base)) return base;
  }
  return null;
}

/** The tags of an Accept-Language header, most wanted first. */
export function acceptedLanguages(header: string | null | undefined): string[] {
  if (!header) return [];
  return header
    .split(",")
    .map((part, index) => {
      const [tag, ...params] = part.trim().split(";");
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { tag: tag!.trim(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.tag && entry.tag !== "*" && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((entry) => entry.tag);
}
