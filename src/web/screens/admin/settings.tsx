import { useEffect, useState } from "preact/hooks";
import { Field, FormError, Notice } from "../../components/field";
import { Loading } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { formatNumber } from "../../lib/format";
import { loadIdentity } from "../../lib/instance";
import { useAction } from "../../lib/use-action";
import { InstanceIcon } from "./instance-icon";
import type { LiveSetting } from "../../lib/types";

const MODES = [
  { value: "open", label: "Open", hint: "anyone can register" },
  { value: "captcha", label: "Captcha", hint: "anyone who solves the built-in captcha" },
  { value: "invite", label: "Invite", hint: "people with an invite code (Invites screen)" },
  { value: "closed", label: "Closed", hint: "nobody; administrators create accounts" },
];

const ICON = "instance.icon";
/** instance.rules is edited one rule per line; every other setting as its text. */
const RULES = "instance.rules";
const asDraft = (s: LiveSetting) => (Array.isArray(s.value) ? s.value.join("\n") : String(s.value));
const fromDraft = (key: string, text: string) =>
  key === RULES
    ? text
        .split("\n")
        .map((line) => line.trim())
        .filter(Boolean)
    : text;

/** The instance's identity, each a live setting: what visitors see on sign-in, registration and /about. */
const IDENTITY: Array<{ key: string; label: string; hint: string; rows?: number }> = [
  { key: "instance.name", label: "Name", hint: "In the header, every page title, sign-in and /about." },
  {
    key: "instance.description",
    label: "Description",
    hint: "What this instance is about, on the sign-in page and /about.",
    rows: 3,
  },
  {
    key: RULES,
    label: "Rules",
    hint: "One rule per line. People accept them when they register; none: nothing to accept.",
    rows: 5,
  },
  { key: "instance.contact", label: "Contact", hint: "An e-mail address or a link to reach the administrators." },
];

/** Settings safe to change on the running server: the identity, the registration mode and the limits. */
export function Settings() {
  const [settings, setSettings] = useState<LiveSetting[] | null>(null);
  const [draft, setDraft] = useState<Record<string, string>>({});
  const [loadError, setLoadError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const { busy, error, apiError, run } = useAction();
  const show = (list: LiveSetting[]) => {
    setSettings(list);
    setDraft(Object.fromEntries(list.map((s) => [s.key, asDraft(s)])));
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
  // the icon saves itself: the form takes its new value and keeps the other fields' edits
  const iconChanged = () =>
    void api.get<{ settings: LiveSetting[] }>("/admin/settings").then((r) => {
      setSettings(r.settings);
      const icon = r.settings.find((s) => s.key === ICON);
      if (icon) setDraft((d) => ({ ...d, [ICON]: asDraft(icon) }));
    });
  return (
    <>
      <InstanceIcon current={draft[ICON] ?? ""} onChanged={iconChanged} />
      <form
        class="card form"
        aria-labelledby="settings-heading"
        onSubmit={run(async () => {
          setSaved(null);
          const changed = Object.fromEntries(
            settings.filter((s) => draft[s.key] !== asDraft(s)).map((s) => [s.key, fromDraft(s.key, draft[s.key]!)]),
          );
          if (!Object.keys(changed).length) return setSaved("Nothing changed.");
          const r = await api.patch<{ settings: LiveSetting[]; changed: string[] }>("/admin/settings", changed);
          show(r.settings);
          if (r.changed.some((key) => key.startsWith("instance."))) await loadIdentity();
          setSaved(`Saved and in effect: ${r.changed.join(", ")}.`);
        })}
      >
        <h2 id="settings-heading">Instance settings</h2>
        <p class="hint">
          These apply to the next request and are kept in the config file. Other settings need{" "}
          <code>socialctl config set</code> and a restart.
        </p>
        <fieldset>
          <legend>Identity</legend>
          {IDENTITY.map((f) => (
            <Field
              key={f.key}
              label={f.label}
              hint={f.hint}
              rows={f.rows}
              required={f.key === "instance.name"}
              value={draft[f.key] ?? ""}
              onValue={(v) => setDraft((d) => ({ ...d, [f.key]: v }))}
              error={apiError?.field(f.key)}
            />
          ))}
        </fieldset>
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
    </>
  );
}
