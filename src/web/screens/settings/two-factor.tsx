import { useState } from "preact/hooks";
import { t } from "../../lib/i18n";
import { Field, FormError, Notice } from "../../components/field";
import { QrCode } from "../../components/qr-code";
import { api, describeError } from "../../lib/api";
import { account, recheckSession } from "../../lib/session";
import { useAction } from "../../lib/use-action";
import { RecoveryCodes } from "./recovery-codes";
import { fieldMessage, Section } from "./section";
import type { TotpSetup as Setup } from "../../lib/types";

type Method = "totp" | "email" | "messenger";
const METHODS: Method[] = ["totp", "email", "messenger"];

/** The method in force, or null when two-factor sign-in is off (the API says "none"). */
function currentMethod(): Method | null {
  const m = account.value?.twoFactorMethod;
  return m && m !== "none" ? m : null;
}

/** Two-factor sign-in: authenticator setup by QR code, the method, turning it off; recovery codes shown once. */
export function TwoFactor() {
  const method = currentMethod();
  const [codes, setCodes] = useState<string[] | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const changed = async (message: string, recoveryCodes?: string[]) => {
    setNotice(message);
    if (recoveryCodes?.length) setCodes(recoveryCodes);
    await recheckSession();
  };
  return (
    <Section title={t("settings.twoFactor.title")}>
      <p class="status-line">{method ? t(`settings.twoFactor.status.${method}`) : t("settings.twoFactor.off")}</p>
      <Notice message={notice} />
      {codes ? (
        <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />
      ) : (
        <>
          <AuthenticatorSetup on={!!method} onEnabled={(c) => changed(t("settings.twoFactor.turnedOn"), c)} />
          <MethodChoice current={method} onChanged={(m, c) => changed(t(`settings.twoFactor.nowBy.${m}`), c)} />
          {method && <TurnOff onDone={() => changed(t("settings.twoFactor.turnedOff"))} />}
        </>
      )}
    </Section>
  );
}

function AuthenticatorSetup({ on, onEnabled }: { on: boolean; onEnabled: (codes: string[]) => Promise<void> }) {
  const [setup, setSetup] = useState<Setup | null>(null);
  const [code, setCode] = useState("");
  const [password, setPassword] = useState("");
  const start = useAction();
  const enable = useAction();
  const begin = start.run(async () => {
    setSetup(await api.post<Setup>("/auth/2fa/totp/setup"));
    setCode("");
  });
  const submit = enable.run(async () => {
    const r = await api.post<{ recoveryCodes: string[] }>("/auth/2fa/totp/enable", {
      code: code.trim(),
      ...(on ? { password } : {}),
    });
    setSetup(null);
    setPassword("");
    await onEnabled(r.recoveryCodes);
  });
  const codeError =
    enable.apiError?.field("code") ??
    (enable.apiError?.code === "TWO_FACTOR_INVALID_CODE" ? t("settings.twoFactor.wrongCode") : undefined);
  const passwordError = enable.apiError?.field("password");
  if (!setup)
    return (
      <div class="subsection">
        <h3>{t("settings.twoFactor.app")}</h3>
        <p class="hint">{t("settings.twoFactor.appHint")}</p>
        <FormError message={start.error ? describeError(start.error) : null} />
        <button type="button" onClick={begin} disabled={start.busy}>
          {on ? t("settings.twoFactor.setUpNew") : t("settings.twoFactor.setUp")}
        </button>
      </div>
    );
  return (
    <form class="subsection form" aria-label={t("settings.twoFactor.setUp")} onSubmit={submit}>
      <h3>{t("settings.twoFactor.app")}</h3>
      <ol class="steps">
        <li>{t("settings.twoFactor.scan")}</li>
        <li>{t("settings.twoFactor.enterCode")}</li>
      </ol>
      <QrCode text={setup.otpauthUrl} label={t("settings.twoFactor.qr")} />
      <p class="hint">
        {t("settings.twoFactor.typeKey")} <code class="secret">{setup.secret}</code>
      </p>
      <Field
        label={t("settings.twoFactor.codeLabel")}
        inputMode="numeric"
        autoComplete="one-time-code"
        required
        maxLength={10}
        value={code}
        onValue={setCode}
        error={fieldMessage(t("settings.twoFactor.code"), codeError)}
      />
      {on && (
        <Field
          label={t("settings.password.password")}
          type="password"
          autoComplete="current-password"
          required
          hint={t("settings.twoFactor.passwordHint")}
          value={password}
          onValue={setPassword}
          error={fieldMessage(t("settings.password.password"), passwordError)}
        />
      )}
      <FormError message={enable.error && !codeError && !passwordError ? describeError(enable.error) : null} />
      <div class="actions">
        <button type="submit" class="primary" disabled={enable.busy}>
          {t("settings.twoFactor.turnOn")}
        </button>
        <button type="button" onClick={() => setSetup(null)}>
          {t("common.cancel")}
        </button>
      </div>
    </form>
  );
}

function MethodChoice({
  current,
  onChanged,
}: {
  current: Method | null;
  onChanged: (m: Method, codes?: string[]) => Promise<void>;
}) {
  const [choice, setChoice] = useState<Method>(current ?? "email");
  const [password, setPassword] = useState("");
  const { busy, error, apiError, run } = useAction();
  const submit = run(async () => {
    const r = await api.post<{ twoFactorMethod: Method; recoveryCodes?: string[] }>("/auth/2fa/method", {
      method: choice,
      password,
    });
    setPassword("");
    await onChanged(r.twoFactorMethod, r.recoveryCodes);
  });
  const methodError = apiError?.field("method");
  const passwordError = apiError?.field("password");
  return (
    <form class="subsection form" aria-label={t("settings.twoFactor.how")} onSubmit={submit}>
      <h3>{t("settings.twoFactor.how")}</h3>
      <fieldset aria-describedby={methodError ? "method-error" : undefined}>
        <legend>{t("settings.twoFactor.sendBy")}</legend>
        {METHODS.map((value) => (
          <label key={value} class="choice choice-with-hint">
            <input
              type="radio"
              name="two-factor-method"
              value={value}
              checked={choice === value}
              onChange={() => setChoice(value)}
            />
            <span>
              {current === value
                ? t("settings.twoFactor.inUse", { method: t(`settings.twoFactor.methods.${value}`) })
                : t(`settings.twoFactor.methods.${value}`)}
              <span class="hint">{t(`settings.twoFactor.hints.${value}`)}</span>
            </span>
          </label>
        ))}
        {methodError && (
          <p class="field-error" id="method-error">
            {methodError.startsWith("set up an authenticator")
              ? t("settings.twoFactor.setUpFirst")
              : fieldMessage(t("settings.twoFactor.methodNeeds"), methodError)}
          </p>
        )}
      </fieldset>
      <Field
        label={t("settings.password.password")}
        type="password"
        autoComplete="current-password"
        required
        value={password}
        onValue={setPassword}
        error={fieldMessage(t("settings.password.password"), passwordError)}
      />
      <FormError message={error && !methodError && !passwordError ? describeError(error) : null} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {t("settings.twoFactor.use")}
        </button>
      </div>
    </form>
  );
}

function TurnOff({ onDone }: { onDone: () => Promise<void> }) {
  const [password, setPassword] = useState("");
  const { busy, error, apiError, run } = useAction();
  const submit = run(async () => {
    await api.post("/auth/2fa/disable", { password });
    setPassword("");
    await onDone();
  });
  const passwordError = apiError?.field("password");
  return (
    <form class="subsection form" aria-label={t("settings.twoFactor.turnOffLabel")} onSubmit={submit}>
      <h3>{t("settings.twoFactor.turnOff")}</h3>
      <Field
        label={t("settings.password.password")}
        type="password"
        autoComplete="current-password"
        required
        value={password}
        onValue={setPassword}
        error={fieldMessage(t("settings.password.password"), passwordError)}
      />
      <FormError message={error && !passwordError ? describeError(error) : null} />
      <div class="actions">
        <button type="submit" class="danger" disabled={busy}>
          {t("settings.twoFactor.turnOffLabel")}
        </button>
      </div>
    </form>
  );
}
