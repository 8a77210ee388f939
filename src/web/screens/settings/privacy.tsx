import { useEffect, useState } from "preact/hooks";
import { FormError, Notice } from "../../components/field";
import { Loading } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { useAction } from "../../lib/use-action";
import { Section } from "./section";
import type { MessageSettings } from "../../lib/types";

type Who = "everyone" | "followed" | "nobody";
const CHOICES: Array<[Who, string]> = [
  ["everyone", "Everyone"],
  ["followed", "Only people I follow"],
  ["nobody", "Nobody"],
];

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
    <Section title="Messages">
      {who === null && !loadError && <Loading />}
      <FormError message={loadError} />
      {who !== null && (
        <form class="form" onSubmit={submit}>
          <fieldset>
            <legend>Who may message me</legend>
            {CHOICES.map(([value, label]) => (
              <label key={value} class="choice">
                <input
                  type="radio"
                  name="who-can-message"
                  value={value}
                  checked={who === value}
                  onChange={() => (setWho(value), setSaved(false))}
                />
                {label}
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
            Bots may write to me first
          </label>
          <p class="hint" id="bots-first-hint">
            Off: a bot can only answer after you write to it (press Start in its chat).
          </p>
          <FormError message={error ? describeError(error) : null} />
          <Notice message={saved ? "Saved." : null} />
          <div class="actions">
            <button type="submit" class="primary" disabled={busy}>
              Save
            </button>
          </div>
        </form>
      )}
    </Section>
  );
}
