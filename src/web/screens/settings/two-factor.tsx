import { useState } from "preact/hooks";
import { Field, FormError, Notice } from "../../components/field";
import { QrCode } from "../../components/qr-code";
import { api, describeError } from "../../lib/api";
import { account, recheckSession } from "../../lib/session";
import { useAction } from "../../lib/use-action";
import { RecoveryCodes } from "./recovery-codes";
import { fieldMessage, Section } from "./section";
import type { TotpSetup as Setup } from "../../lib/types";

type Method = "totp" | "email" | "messenger";
const METHODS: Array<[Method, string, string]> = [
  ["totp", "Authenticator app", "A six-digit code from an app on your phone (set it up above first)."],
  ["email", "E-mail", "A six-digit code sent to your confirmed e-mail address."],
  ["messenger", "Messenger", "A six-digit code sent to you as a chat message from this instance's system account."],
];
const STATUS: Record<Method, string> = {
  totp: "On: you confirm sign-ins with a code from your authenticator app.",
  email: "On: you confirm sign-ins with a code sent by e-mail.",
  messenger: "On: you confirm sign-ins with a code sent as a chat message.",
};

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
    <Section title="Two-factor authentication">
      <p class="status-line">{method ? STATUS[method] : "Off: your password alone signs you in."}</p>
      <Notice message={notice} />
      {codes ? (
        <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />
      ) : (
        <>
          <AuthenticatorSetup
            on={!!method}
            onEnabled={(c) => changed("Two-factor sign-in is on, with your authenticator app.", c)}
          />
          <MethodChoice
            current={method}
            onChanged={(m, c) =>
              changed(
                `You now confirm sign-ins by ${m === "totp" ? "authenticator app" : m === "email" ? "e-mail" : "messenger"}.`,
                c,
              )
            }
          />
          {method && <TurnOff onDone={() => changed("Two-factor sign-in is off.")} />}
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
    (enable.apiError?.code === "TWO_FACTOR_INVALID_CODE"
      ? "That code is not right. Check the time on your phone and try the next code."
      : undefined);
  const passwordError = enable.apiError?.field("password");
  if (!setup)
    return (
      <div class="subsection">
        <h3>Authenticator app</h3>
        <p class="hint">Apps such as Aegis, FreeOTP or Google Authenticator show a new code every 30 seconds.</p>
        <FormError message={start.error ? describeError(start.error) : null} />
        <button type="button" onClick={begin} disabled={start.busy}>
          {on ? "Set up a new authenticator app" : "Set up an authenticator app"}
        </button>
      </div>
    );
  return (
    <form class="subsection form" aria-label="Set up an authenticator app" onSubmit={submit}>
      <h3>Authenticator app</h3>
      <ol class="steps">
        <li>Scan this QR code with the app.</li>
        <li>Enter the six-digit code the app shows.</li>
      </ol>
      <QrCode text={setup.otpauthUrl} label="QR code for your authenticator app" />
      <p class="hint">
        Cannot scan? Type this key into the app: <code class="secret">{setup.secret}</code>
      </p>
      <Field
        label="Code from the app"
        inputMode="numeric"
        autoComplete="one-time-code"
        required
        maxLength={10}
        value={code}
        onValue={setCode}
        error={fieldMessage("Code", codeError)}
      />
      {on && (
        <Field
          label="Password"
          type="password"
          autoComplete="current-password"
          required
          hint="Two-factor sign-in is on already, so your password is needed to replace it."
          value={password}
          onValue={setPassword}
          error={fieldMessage("Password", passwordError)}
        />
      )}
      <FormError message={enable.error && !codeError && !passwordError ? describeError(enable.error) : null} />
      <div class="actions">
        <button type="submit" class="primary" disabled={enable.busy}>
          Turn on
        </button>
        <button type="button" onClick={() => setSetup(null)}>
          Cancel
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
    <form class="subsection form" aria-label="How to confirm sign-ins" onSubmit={submit}>
      <h3>How to confirm sign-ins</h3>
      <fieldset aria-describedby={methodError ? "method-error" : undefined}>
        <legend>Send me the code by</legend>
        {METHODS.map(([value, label, hint]) => (
          <label key={value} class="choice choice-with-hint">
            <input
              type="radio"
              name="two-factor-method"
              value={value}
              checked={choice === value}
              onChange={() => setChoice(value)}
            />
            <span>
              {label}
              {current === value && " (in use)"}
              <span class="hint">{hint}</span>
            </span>
          </label>
        ))}
        {methodError && (
          <p class="field-error" id="method-error">
            {methodError.startsWith("set up an authenticator")
              ? "Set up an authenticator app first (above)."
              : fieldMessage("This method needs you to", methodError)}
          </p>
        )}
      </fieldset>
      <Field
        label="Password"
        type="password"
        autoComplete="current-password"
        required
        value={password}
        onValue={setPassword}
        error={fieldMessage("Password", passwordError)}
      />
      <FormError message={error && !methodError && !passwordError ? describeError(error) : null} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          Use this method
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
    <form class="subsection form" aria-label="Turn off two-factor" onSubmit={submit}>
      <h3>Turn off</h3>
      <Field
        label="Password"
        type="password"
        autoComplete="current-password"
        required
        value={password}
        onValue={setPassword}
        error={fieldMessage("Password", passwordError)}
      />
      <FormError message={error && !passwordError ? describeError(error) : null} />
      <div class="actions">
        <button type="submit" class="danger" disabled={busy}>
          Turn off two-factor
        </button>
      </div>
    </form>
  );
}
