/** The shape of a language's error catalog (errors-ru.ts), apart from the code that words with it (error-wording.ts). */

/** A translation, or for a text with a number in it, its plural forms chosen by the value of `count`'s placeholder. */
export type ErrorTranslation =
  string | ({ count: string; other: string } & Partial<Record<"zero" | "one" | "two" | "few" | "many", string>>);

/** English error text (with `{{name}}` placeholders) → the language's text. */
export type ErrorCatalog = Readonly<Record<string, ErrorTranslation>>;
