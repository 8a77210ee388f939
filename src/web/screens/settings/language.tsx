import { useState } from "preact/hooks";
import { FormError, Notice } from "../../components/field";
import { api, describeError } from "../../lib/api";
import { chooseLanguage, language, languageNames, t } from "../../lib/i18n";
import { isLanguage } from "../../../locales/languages";
import { Section } from "./section";

/**
 * The app's language: shown at once on this device, and kept on the account (settings
 * `language`) so the server writes to the person in it and their other devices follow.
 */
export function LanguageChoice() {
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  async function choose(code: string) {
    if (!isLanguage(code)) return;
    setError(null);
    setSaved(false);
    await chooseLanguage(code);
    try {
      await api.patch("/account/settings", { language: code });
      setSaved(true);
    } catch (err) {
      setError(describeError(err));
    }
  }
  return (
    <Section title={t("settings.language")}>
      <div class="field">
        <label for="app-language">{t("settings.language")}</label>
        <select id="app-language" value={language.value} onChange={(e) => void choose(e.currentTarget.value)}>
          {Object.entries(languageNames).map(([code, name]) => (
            <option key={code} value={code} lang={code}>
              {name}
            </option>
          ))}
        </select>
      </div>
      <FormError message={error} />
      <Notice message={saved ? t("settings.saved") : null} />
    </Section>
  );
}
