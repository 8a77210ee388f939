import { useState } from "preact/hooks";
import { t } from "../../lib/i18n";
import { useLocation } from "preact-iso";
import { Dialog } from "../../components/dialog";
import { Field, FormError, Notice } from "../../components/field";
import { api, describeError } from "../../lib/api";
import { saveFile } from "../../lib/download";
import { account, recheckSession } from "../../lib/session";
import { useAction } from "../../lib/use-action";
import { fieldMessage, Section } from "./section";

/** Everything the instance keeps about me, as one JSON file. */
export function ExportData() {
  const [done, setDone] = useState(false);
  const { busy, error, run } = useAction();
  const download = run(async () => {
    setDone(false);
    const { export: data } = await api.get<{ export: unknown }>("/account/export");
    const day = new Date().toISOString().slice(0, 10);
    saveFile(
      `${account.value?.username ?? "account"}-export-${day}.json`,
      JSON.stringify(data, null, 2),
      "application/json",
    );
    setDone(true);
  });
  return (
    <Section title={t("settings.data.title")} intro={t("settings.data.intro")}>
      <FormError message={error ? describeError(error) : null} />
      <Notice message={done ? t("settings.data.done") : null} />
      <div class="actions">
        <button type="button" onClick={download} disabled={busy}>
          {busy ? t("settings.data.preparing") : t("settings.data.download")}
        </button>
      </div>
    </Section>
  );
}

/** Deleting the account for good: the password, then a confirmation dialog. */
export function DeleteAccount() {
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState("");
  const { route } = useLocation();
  const { busy, error, apiError, run, setError } = useAction();
  const confirm = run(async () => {
    await api.delete("/account", { password });
    // the server ended the session with the account; asking it makes the app show sign-in
    await recheckSession();
    route("/?deleted=1", true);
  });
  const passwordError = apiError?.field("password");
  const close = () => {
    setOpen(false);
    setPassword("");
    setError(null);
  };
  return (
    <Section title={t("settings.delete.title")} intro={t("settings.delete.intro")}>
      <div class="actions">
        <button type="button" class="danger" onClick={() => setOpen(true)}>
          {t("settings.delete.open")}
        </button>
      </div>
      <Dialog open={open} title={t("settings.delete.confirmTitle")} onClose={close}>
        <form class="form" onSubmit={confirm}>
          <p>{t("settings.delete.gone")}</p>
          <p>{t("settings.delete.bots")}</p>
          <p>{t("settings.delete.enterPassword")}</p>
          <Field
            label={t("settings.password.password")}
            type="password"
            autoComplete="current-password"
            required
            autoFocus
            value={password}
            onValue={setPassword}
            error={fieldMessage(t("settings.password.password"), passwordError)}
          />
          <FormError message={error && !passwordError ? describeError(error) : null} />
          <div class="actions">
            <button type="submit" class="primary danger-fill" disabled={busy}>
              {t("settings.delete.confirm")}
            </button>
            <button type="button" onClick={close}>
              {t("settings.delete.keep")}
            </button>
          </div>
        </form>
      </Dialog>
    </Section>
  );
}
