import { useEffect, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { Field, FormError } from "../../components/field";
import { InstanceIntro, RulesList } from "../../components/instance";
import { Loading, Page } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { useAction } from "../../lib/use-action";
import { identity } from "../../lib/instance";
import { instance, sessionStarted } from "../../lib/session";
import type { Account } from "../../lib/types";

interface Captcha {
  captchaId: string;
  image: string;
}

/**
 * Creating an account. The instance decides who may: `open` (anyone), `captcha` (anyone who
 * reads the distorted word) or `closed` (accounts are made by the administrator).
 */
export function Register() {
  const { route } = useLocation();
  const mode = instance.value?.registration ?? (instance.value?.captchaRequired ? "captcha" : "open");
  const [email, setEmail] = useState("");
  const [username, setUsername] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [password, setPassword] = useState("");
  const [answer, setAnswer] = useState("");
  const [captcha, setCaptcha] = useState<Captcha | null>(null);
  const [acceptRules, setAcceptRules] = useState(false);
  const rules = identity.value?.rules ?? [];
  const { busy, error, apiError, setError, run } = useAction();

  async function newCaptcha() {
    setAnswer("");
    try {
      setCaptcha(await api.get<Captcha>("/auth/captcha"));
    } catch (err) {
      setError(err);
    }
  }
  useEffect(() => {
    if (mode === "captcha") void newCaptcha();
  }, [mode]);

  if (mode === "closed") {
    return (
      <Page title="Create an account">
        <div class="card">
          <p>
            This instance does not take new sign-ups: its administrator creates accounts. Ask them for one, then{" "}
            <a href="/">sign in</a>.
          </p>
        </div>
      </Page>
    );
  }

  const submit = run(async () => {
    try {
      const { account } = await api.post<{ account: Account }>("/auth/register", {
        email,
        username,
        password,
        ...(displayName.trim() ? { displayName: displayName.trim() } : {}),
        ...(captcha ? { captchaId: captcha.captchaId, captchaAnswer: answer.trim() } : {}),
        ...(rules.length ? { acceptRules } : {}),
      });
      sessionStarted(account);
      route("/", true);
    } catch (err) {
      // a captcha answers once: a failed attempt needs a new picture
      if (mode === "captcha") void newCaptcha();
      throw err;
    }
  });

  const captchaError =
    apiError && (apiError.code === "CAPTCHA_FAILED" || apiError.code === "CAPTCHA_REQUIRED")
      ? "That was not the word in the picture. Try this new one."
      : apiError?.field("captchaAnswer");
  const fieldNamed =
    apiError &&
    Object.keys(apiError.fieldErrors).some((f) =>
      ["email", "username", "password", "displayName", "captchaAnswer", "acceptRules"].includes(f),
    );
  return (
    <Page title="Create an account">
      <InstanceIntro />
      <form class="card form" onSubmit={submit}>
        <p class="hint">
          {mode === "open"
            ? "Anyone may join this instance."
            : "Anyone may join this instance; a picture check keeps out programs."}
        </p>
        <Field
          label="Email"
          type="email"
          value={email}
          onValue={setEmail}
          autoComplete="email"
          required
          error={apiError?.field("email")}
        />
        <Field
          label="Username"
          value={username}
          onValue={setUsername}
          autoComplete="username"
          hint="Letters, digits and underscores; people mention you as @username."
          required
          error={apiError?.field("username")}
        />
        <Field
          label="Display name (optional)"
          value={displayName}
          onValue={setDisplayName}
          autoComplete="name"
          error={apiError?.field("displayName")}
        />
        <Field
          label="Password"
          type="password"
          value={password}
          onValue={setPassword}
          autoComplete="new-password"
          hint="At least 8 characters."
          required
          error={apiError?.field("password")}
        />
        {mode === "captcha" && (
          <div class="captcha">
            {captcha ? (
              <img src={captcha.image} alt="A distorted word to type below" width={200} height={70} />
            ) : (
              <Loading label="Loading the picture…" />
            )}
            <button type="button" onClick={newCaptcha}>
              New picture
            </button>
            <Field
              label="The word in the picture"
              value={answer}
              onValue={setAnswer}
              autoComplete="off"
              required
              error={captchaError}
            />
          </div>
        )}
        {rules.length > 0 && (
          <fieldset class="accept-rules">
            <legend>The rules of {identity.value!.name}</legend>
            <RulesList rules={rules} />
            <label class="choice">
              <input
                type="checkbox"
                required
                checked={acceptRules}
                onChange={(e) => setAcceptRules(e.currentTarget.checked)}
                aria-describedby={apiError?.field("acceptRules") ? "accept-rules-error" : undefined}
                aria-invalid={apiError?.field("acceptRules") ? true : undefined}
              />{" "}
              I have read and accept the rules
            </label>
            {apiError?.field("acceptRules") && (
              <p class="field-error" id="accept-rules-error">
                Accept the rules to join.
              </p>
            )}
          </fieldset>
        )}
        <FormError message={error && !fieldNamed && !captchaError ? describeError(error) : null} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Create account
          </button>
          <a href="/">I already have an account</a>
        </div>
      </form>
    </Page>
  );
}
