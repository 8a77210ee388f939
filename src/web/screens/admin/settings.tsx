import { useEffect, useState } from "preact/hooks";
import { Field, FormError, Notice } from "../../components/field";
import { Loading } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { formatNumber } from "../../lib/format";
import { t } from "../../lib/i18n";
import { loadIdentity } from "../../lib/instance";
import { useAction } from "../../lib/use-action";
import { InstanceIcon } from "./instance-icon";
import type { LiveSetting } from "../../lib/types";

const MODES = ["open", "captcha", "invite", "closed"] as const;

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
const IDENTITY = [
  { key: "instance.name", text: "name" },
  { key: "instance.description", text: "description", rows: 3 },
  { key: RULES, text: "rules", rows: 5 },
  { key: "instance.contact", text: "contact" },
] as const;

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
  if (!settings) return <Loading label={t("admin.settings.loading")} />;
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
          if (!Object.keys(changed).length) return setSaved(t("admin.settings.unchanged"));
          const r = await api.patch<{ settings: LiveSetting[]; changed: string[] }>("/admin/settings", changed);
          show(r.settings);
          if (r.changed.some((key) => key.startsWith("instance."))) await loadIdentity();
          setSaved(t("admin.settings.saved", { keys: r.changed.join(", ") }));
        })}
      >
        <h2 id="settings-heading">{t("admin.settings.heading")}</h2>
        <p class="hint">
          {t("admin.settings.hintBefore")} <code>socialctl config set</code> {t("admin.settings.hintAfter")}
        </p>
        <fieldset>
          <legend>{t("admin.settings.identity")}</legend>
          {IDENTITY.map((f) => (
            <Field
              key={f.key}
              label={t(`admin.settings.fields.${f.text}.label`)}
              hint={t(`admin.settings.fields.${f.text}.hint`)}
              rows={"rows" in f ? f.rows : undefined}
              required={f.key === "instance.name"}
              value={draft[f.key] ?? ""}
              onValue={(v) => setDraft((d) => ({ ...d, [f.key]: v }))}
              error={apiError?.field(f.key)}
            />
          ))}
        </fieldset>
        <fieldset>
          <legend>{t("admin.settings.registration")}</legend>
          {MODES.map((m) => (
            <label key={m} class="choice">
              <input
                type="radio"
                name="registration"
                value={m}
                checked={draft.registration === m}
                onChange={() => setDraft((d) => ({ ...d, registration: m }))}
              />{" "}
              {t(`admin.settings.modes.${m}.label`)}
              <span class="muted"> ({t(`admin.settings.modes.${m}.hint`)})</span>
            </label>
          ))}
          {apiError?.field("registration") && <p class="field-error">{apiError.field("registration")}</p>}
        </fieldset>
        <fieldset>
          <legend>{t("admin.settings.limits")}</legend>
          <div class="settings-grid">
            {limits.map((s) => (
              <Field
                key={s.key}
                label={s.describe.replace(/^./, (c) => c.toUpperCase())}
                hint={t("admin.settings.limitHint", { key: s.key, value: formatNumber(Number(s.default)) })}
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
        <FormError message={error && !onField ? describeError(error) : onField ? t("admin.settings.invalid") : null} />
        <Notice message={saved} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {t("admin.settings.save")}
          </button>
        </div>
      </form>
    </>
  );
}
