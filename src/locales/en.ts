/**
 * English, the source catalog: every text of the web app (`app`) and of what the server writes
 * to a person (`server`: notifications, e-mails, system messages). Other languages translate
 * these keys (catalogs.test.ts checks they are complete). Values use i18next's syntax:
 * `{{name}}` is a value, and a key with `_one`/`_other` (Russian: `_one`/`_few`/`_many`/`_other`)
 * is chosen by `count` through Intl.PluralRules; `{{count, number}}` formats through
 * Intl.NumberFormat. Keys are grouped by the screen or component that shows them.
 */
const en = {
  app: {
    common: {
      cancel: "Cancel",
      save: "Save",
      loading: "Loading…",
    },
    settings: {
      language: "Language",
    },
  },
  server: {},
};

export default en;
export type Catalog = typeof en;
