import { useEffect, useState } from "preact/hooks";
import { FormError, Notice } from "../../components/field";
import { Loading } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { useAction } from "../../lib/use-action";
import { Section } from "./section";

type Who = "everyone" | "followed" | "nobody";
const CHOICES: Array<[Who, string]> = [
  ["everyone", "Everyone"],
  ["followed", "Only people I follow"],
  ["nobody", "Nobody"],
];

/** Who may start a chat with me (account settings `whoCanMessage`). */
export function Privacy() {
  const [who, setWho] = useState<Who | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const { busy, error, run } = useAction();
  useEffect(() => {
    api
      .get<{ settings: { whoCanMessage: Who } }>("/account/settings")
      .then((r) => setWho(r.settings.whoCanMessage))
      .catch((err) => setLoadError(describeError(err)));
  }, []);
  const submit = run(async () => {
    setSaved(false);
    const r = await api.patch<{ settings: { whoCanMessage: Who } }>("/account/settings", { whoCanMessage: who });
    setWho(r.settings.whoCanMessage);
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
