import { useEffect, useState } from "preact/hooks";
import { t } from "../../lib/i18n";
import { FormError, Notice } from "../../components/field";
import { Loading } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { useAction } from "../../lib/use-action";
import { Section } from "./section";
import type { MessageSettings } from "../../lib/types";

type Who = "everyone" | "followed" | "nobody";
const CHOICES: Who[] = ["everyone", "followed", "nobody"];

/** Who may start a chat with me, and whether bots may (account settings `whoCanMessage`, `botsMayWriteFirst`). */
export function Privacy() {
  const [who, setWho] = useState<Who | null>(null);
  const [botsFirst, setBotsFirst] = useState(true);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const { busy, error, run } = useAction();
  useEffect(() => {
    api
      .get<{ settings: MessageSettings }>("/account/settings")
      .then((r) => (setWho(r.settings.whoCanMessage), setBotsFirst(r.settings.botsMayWriteFirst)))
      .catch((err) => setLoadError(describeError(err)));
  }, []);
  const submit = run(async () => {
    setSaved(false);
    const r = await api.patch<{ settings: MessageSettings }>("/account/settings", {
      whoCanMessage: who,
      botsMayWriteFirst: botsFirst,
    });
    setWho(r.settings.whoCanMessage);
    setBotsFirst(r.settings.botsMayWriteFirst);
    setSaved(true);
  });
  return (
    <Section title={t("settings.privacy.title")}>
      {who === null && !loadError && <Loading />}
      <FormError message={loadError} />
      {who !== null && (
        <form class="form" onSubmit={submit}>
          <fieldset>
            <legend>{t("settings.privacy.who")}</legend>
            {CHOICES.map((value) => (
              <label key={value} class="choice">
                <input
                  type="radio"
                  name="who-can-message"
                  value={value}
                  checked={who === value}
                  onChange={() => (setWho(value), setSaved(false))}
                />
                {t(`settings.privacy.${value}`)}
              </label>
            ))}
          </fieldset>
          <label class="choice">
            <input
              type="checkbox"
              checked={botsFirst}
              onChange={(e) => (setBotsFirst(e.currentTarget.checked), setSaved(false))}
              aria-describedby="bots-first-hint"
            />
            {t("settings.privacy.botsFirst")}
          </label>
          <p class="hint" id="bots-first-hint">
            {t("settings.privacy.botsFirstHint")}
          </p>
          <FormError message={error ? describeError(error) : null} />
          <Notice message={saved ? t("settings.saved") : null} />
          <div class="actions">
            <button type="submit" class="primary" disabled={busy}>
              {t("common.save")}
            </button>
          </div>
        </form>
      )}
    </Section>
  );
}
