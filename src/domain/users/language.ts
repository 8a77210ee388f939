import type { i18n, TFunction } from "i18next";
import type { Db } from "../../db";
import { fieldError } from "../../lib/errors";
import { DEFAULT_LANGUAGE, isLanguage, LANGUAGES, type Language } from "../../locales/languages";
import { createTranslator } from "../../locales/translate";
import { systemMessageText } from "../../locales/system-messages";

/** The server's texts in one language: keys of the catalogs' `server` block (src/locales/en.ts). */
export type ServerText = TFunction<"server">;

/**
 * Every language's catalog in one i18next instance, loaded on first use and kept for the
 * process: the catalogs never change while it runs, so every App shares it.
 */
let translator: Promise<i18n> | undefined;

const serverTranslator = (): Promise<i18n> =>
  (translator ??= createTranslator(Object.keys(LANGUAGES) as Language[], DEFAULT_LANGUAGE));

/** The language the server writes to a person in: theirs when they set a known one, else the instance's default. */
export const languageOf = (user: { language: string | null } | null | undefined): Language =>
  isLanguage(user?.language) ? user.language : DEFAULT_LANGUAGE;

/** CODE as a language the server writes in, or null (the default); anything else is a 400 naming FIELD. */
export function requireLanguage(field: string, code: string | null): Language | null {
  if (code === null || isLanguage(code)) return code;
  throw fieldError(field, `must be one of ${Object.keys(LANGUAGES).join(", ")}, or null for the instance's default`);
}

/** The server's texts in LANGUAGE (a person's `users.language`; null or unknown: the default language). */
export async function textFor(language: string | null | undefined): Promise<ServerText> {
  const code = isLanguage(language) ? language : DEFAULT_LANGUAGE;
  return (await serverTranslator()).getFixedT(code, "server");
}

/** A chat's service message (its stored `system`) worded with T; STORED (its stored text) when the structure is not one this code words. */
export function systemMessageIn(t: ServerText, system: unknown, stored: string): string {
  const text = systemMessageText(system);
  return text ? t(`chat.${text.key}`, text.values) : stored;
}

/** The languages of the accounts USERIDS (unknown ones: the default), for writing to several people at once. */
export async function languagesOf(db: Db, userIds: readonly number[]): Promise<Map<number, Language>> {
  const found = new Map<number, Language>();
  if (userIds.length === 0) return found;
  const rows = await db
    .selectFrom("users")
    .select(["id", "language"])
    .where("id", "in", [...userIds])
    .execute();
  for (const id of userIds) found.set(id, DEFAULT_LANGUAGE);
  for (const row of rows) found.set(row.id, languageOf(row));
  return found;
}

/** USERIDS grouped by their language, so a text is made once per language. */
export async function byLanguage(db: Db, userIds: readonly number[]): Promise<Map<Language, number[]>> {
  const groups = new Map<Language, number[]>();
  for (const [id, code] of await languagesOf(db, userIds)) groups.set(code, [...(groups.get(code) ?? []), id]);
  return groups;
}

/**
 * When a mail's dates are shown: in UTC, named as such, since the server does not know the
 * reader's time zone; the words and their order follow the language (Intl.DateTimeFormat).
 */
export const MAIL_DATE: Intl.DateTimeFormatOptions = {
  year: "numeric",
  month: "long",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  timeZone: "UTC",
  timeZoneName: "short",
};
