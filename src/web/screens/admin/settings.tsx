import { useEffect, useState } from "preact/hooks";
import { Field, FormError, Notice } from "../../components/field";
import { Loading } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { formatNumber } from "../../lib/format";
import { useAction } from "../../lib/use-action";
import type { LiveSetting } from "./types";

const MODES = [
  { value: "open", label: "Open", hint: "anyone can register" },
  { value: "captcha", label: "Captcha", hint: "anyone who solves the built-in captcha" },
  { value: "invite", label: "Invite", hint: "people with an invite code (Invites screen)" },
  { value: "closed", label: "Closed", hint: "nobody; administrators create accounts" },
];

/** Settings safe to change on the running server: the registration mode and the limits. */
export function Settings() {
  const [settings, setSettings] = useState<LiveSetting[] | null>(null);
  const [draft, setDraft] = useState<Record<string, string>>({});
  const [loadError, setLoadError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const { busy, error, apiError, run } = useAction();
  const show = (list: LiveSetting[]) => {
    setSettings(list);
    setDraft(Object.fromEntries(list.map((s) => [s.key, String(s.value)])));
  };
  useEffect(() => {
    api.get<{ settings: LiveSetting[] }>("/admin/settings").then(
      (r) => show(r.settings),
      (err) => setLoadError(describeError(err)),
    );
  }, []);
  if (loadError) return <FormError message={loadError} />;
  if (!settings) return <Loading label="Loading settings…" />;
  const limits = settings.filter((s) => s.key.startsWith("limits."));
  const onField = apiError && Object.keys(apiError.fieldErrors).some((k) => k in draft);
  return (
    <form
      class="card form"
      aria-labelledby="settings-heading"
      onSubmit={run(async () => {
        setSaved(null);
        const changed = Object.fromEntries(
          settings.filter((s) => draft[s.key] !== String(s.value)).map((s) => [s.key, draft[s.key]!]),
        );
        if (!Object.keys(changed).length) return setSaved("Nothing changed.");
        const r = await api.patch<{ settings: LiveSetting[]; changed: string[] }>("/admin/settings", changed);
        show(r.settings);
        setSaved(`Saved and in effect: ${r.changed.join(", ")}.`);
      })}
    >
      <h2 id="settings-heading">Instance settings</h2>
      <p class="hint">
        These apply to the next request and are kept in the config file. Other settings need{" "}
        <code>socialctl config set</code> and a restart.
      </p>
      <fieldset>
        <legend>Registration</legend>
        {MODES.map((m) => (
          <label key={m.value} class="choice">
            <input
              type="radio"
              name="registration"
              value={m.value}
              checked={draft.registration === m.value}
              onChange={() => setDraft((d) => ({ ...d, registration: m.value }))}
            />{" "}
            {m.label}
            <span class="muted"> ({m.hint})</span>
          </label>
        ))}
        {apiError?.field("registration") && <p class="field-error">{apiError.field("registration")}</p>}
      </fieldset>
      <fieldset>
        <legend>Limits</legend>
        <div class="settings-grid">
          {limits.map((s) => (
            <Field
              key={s.key}
              label={s.describe.replace(/^./, (c) => c.toUpperCase())}
              hint={`${s.key}, default ${formatNumber(Number(s.default))}`}
              type="number"
              inputMode="numeric"
              required
              value={draft[s.key] ?? ""}
              onValue={(v) => setDraft((d) => ({ ...d, [s.key]: v }))}
              error={apiError?.field(s.key)}
            />
          ))}
        </div>
      </fieldset>
      <FormError
        message={
          error && !onField
            ? describeError(error)
            : onField
              ? "Some values are not valid: see the fields marked."
              : null
        }
      />
      <Notice message={saved} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          Save settings
        </button>
      </div>
    </form>
  );
}
