import { signal } from "@preact/signals";
import { isLanguage, LANGUAGES, pickLanguage, DEFAULT_LANGUAGE, type Language } from "../../locales/languages";
import type { AdminCatalog } from "../../locales/admin-en";
import type { Catalog } from "../../locales/en";
import { systemMessageText } from "../../locales/system-messages";
import { wording, type CatalogKey, type CatalogTree, type Wording } from "../../locales/word";

/** The device's explicit choice; without it the app follows the browser. */
const CHOICE_KEY = "language";

/** The language the app shows; reading it in a render re-renders on a change. */
export const language = signal<Language>(DEFAULT_LANGUAGE);
let translator: Wording<AppKey> | null = null;
/** The catalog's `server` block: a chat's notices are stored as structure and worded by the reader's app. */
let serverTexts: Wording | null = null;

/** A key of the web app's catalog block: "feed.title" (and the admin area's, "admin.…"). */
export type AppKey = CatalogKey<Catalog["app"] & { admin: AdminCatalog }>;

/** Whether the admin area's texts are wanted: once its screens opened, a change of language loads them too. */
let adminWanted = false;

export const browserLanguage = (): Language =>
  pickLanguage(navigator.languages ?? [navigator.language]) ?? DEFAULT_LANGUAGE;

function storedChoice(): Language | null {
  try {
    const code = localStorage.getItem(CHOICE_KEY);
    return isLanguage(code) ? code : null;
  } catch {
    return null;
  }
}

/** This device's explicit choice, or null when it follows the browser. */
export const languageChoice = signal<Language | null>(null);

/** Loads the language's catalog (its own chunk) and shows it. */
async function show(code: Language): Promise<void> {
  if (translator && code === language.value) return;
  const [catalog, admin] = await Promise.all([
    LANGUAGES[code].load().then((m) => m.default as unknown as { app: CatalogTree; server: CatalogTree }),
    adminWanted ? LANGUAGES[code].loadAdmin().then((m) => m.default as CatalogTree) : undefined,
  ]);
  translator = wording<AppKey>(admin ? { ...catalog.app, admin } : catalog.app, code);
  serverTexts = wording(catalog.server, code);
  document.documentElement.lang = code;
  language.value = code;
}

/** The admin area's texts in the shown language (their own chunk), before its screens render. */
export async function loadAdminTexts(): Promise<void> {
  if (adminWanted) return;
  adminWanted = true;
  const code = language.value;
  const [catalog, admin] = await Promise.all([LANGUAGES[code].load(), LANGUAGES[code].loadAdmin()]);
  translator = wording<AppKey>({ ...(catalog.default.app as CatalogTree), admin: admin.default as CatalogTree }, code);
}

/** Before the first render: the device's choice, else the browser's languages. */
export function startLanguage(): Promise<void> {
  languageChoice.value = storedChoice();
  return show(languageChoice.value ?? browserLanguage());
}

/**
 * Sets (or, with null, clears) the explicit choice on this device and shows the language it
 * leads to. Settings also keep the choice on the account, so the server writes to the person
 * in it and a device without a choice of its own shows it (`applyAccountLanguage`).
 */
export async function chooseLanguage(code: Language | null): Promise<void> {
  try {
    if (code) localStorage.setItem(CHOICE_KEY, code);
    else localStorage.removeItem(CHOICE_KEY);
  } catch {
    // storage refused (private mode): the choice lasts for this page
  }
  languageChoice.value = code;
  await show(code ?? browserLanguage());
}

/** The signed-in account's language, shown on a device that has made no choice of its own. */
export function applyAccountLanguage(code: string | null | undefined): Promise<void> {
  if (languageChoice.value || !isLanguage(code)) return Promise.resolve();
  return show(code);
}

/**
 * The text of a catalog key in the shown language. Reading `language` subscribes the rendering
 * component, so a change of language re-renders what is on screen.
 */
export const t: Wording<AppKey> = (key, values) => {
  void language.value;
  if (!translator) throw new Error("t() before startLanguage()");
  return translator(key, values);
};

export const languageNames = Object.fromEntries(
  Object.entries(LANGUAGES).map(([code, entry]) => [code, entry.name]),
) as Record<Language, string>;

/**
 * A chat notice ("Ann added Bob") in the shown language, from the structure the server stores
 * with it (src/locales/system-messages.ts); STORED, the text in the instance's default
 * language, when the structure is not one this app words.
 */
export function chatNotice(system: unknown, stored: string): string {
  void language.value;
  const text = systemMessageText(system);
  return text && serverTexts ? serverTexts(`chat.${text.key}`, text.values) : stored;
}
