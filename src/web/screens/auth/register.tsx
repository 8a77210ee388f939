import { useEffect, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { Field, FormError, Notice } from "../../components/field";
import { InstanceIntro, RulesList } from "../../components/instance";
import { Loading, Page } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { useAction } from "../../lib/use-action";
import { identity } from "../../lib/instance";
import { instance, sessionStarted } from "../../lib/session";
import type { Account, Captcha } from "../../lib/types";

/**
 * Creating an account. The instance decides who may: `open` (anyone), `captcha` (anyone who
 * reads the code in the picture or answers the question beside it), `invite` (people with a
 * code; /register?invite=<code> fills it in, and in `captcha` mode such a link skips the
 * captcha) or `closed` (accounts are made by the administrator).
 */
export function Register() {
  const { route, query } = useLocation();
  const mode = instance.value?.registration ?? (instance.value?.captchaRequired ? "captcha" : "open");
  const invitedByLink = query.invite ?? "";
  const withInvite = mode === "invite" || (mode === "captcha" && invitedByLink !== "");
  const withCaptcha = mode === "captcha" && !withInvite;
  const [inviteCode, setInviteCode] = useState(invitedByLink);
  const [mailedTo, setMailedTo] = useState<string | null>(null);
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
    // the used picture and question go at once: an answer to them could only fail
    setCaptcha(null);
    try {
      setCaptcha(await api.get<Captcha>("/auth/captcha"));
    } catch (err) {
      setError(err);
    }
  }
  useEffect(() => {
    if (withCaptcha) void newCaptcha();
  }, [withCaptcha]);

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

  if (mailedTo) {
    return (
      <Page title="Create an account">
        <div class="card">
          <Notice
            message={`A message is on its way to ${mailedTo}. Open the link in it to confirm your address, then sign in.`}
          />
          <p>
            <a href="/">Sign in</a>
          </p>
        </div>
      </Page>
    );
  }

  const submit = run(async () => {
    try {
      // the answer is the same whether or not the address already had an account
      await api.post<{ sent: true }>("/auth/register", {
        email,
        username,
        password,
        ...(displayName.trim() ? { displayName: displayName.trim() } : {}),
        ...(withCaptcha && captcha ? { captchaId: captcha.captchaId, captchaAnswer: answer.trim() } : {}),
        ...(withInvite ? { inviteCode: inviteCode.trim() } : {}),
        ...(rules.length ? { acceptRules } : {}),
      });
    } catch (err) {
      // a captcha answers once: a failed attempt needs a new one
      if (withCaptcha) void newCaptcha();
      throw err;
    }
    try {
      const { account } = await api.post<{ account: Account }>("/auth/login", { email, password });
      sessionStarted(account);
      route("/", true);
    } catch {
      // the address must be confirmed first, or it already had an account (its owner got a mail)
      setMailedTo(email);
    }
  });

  const captchaError =
    apiError && (apiError.code === "CAPTCHA_FAILED" || apiError.code === "CAPTCHA_REQUIRED")
      ? "That was not the code in the picture or the answer to the question. Try this new one."
      : apiError?.field("captchaAnswer");
  const inviteError = apiError?.code.startsWith("INVITE_") ? apiError.message : apiError?.field("inviteCode");
  const fieldNamed =
    apiError &&
    Object.keys(apiError.fieldErrors).some((f) =>
      ["email", "username", "password", "displayName", "captchaAnswer", "inviteCode", "acceptRules"].includes(f),
    );
  return (
    <Page title="Create an account">
      <InstanceIntro />
      <form class="card form" onSubmit={submit}>
        <p class="hint">
          {mode === "open"
            ? "Anyone may join this instance."
            : withInvite
              ? "This instance takes new people by invitation: you need the code from your invite."
              : "Anyone may join this instance; a short check keeps out programs."}
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
        {withInvite && (
          <Field
            label="Invite code"
            value={inviteCode}
            onValue={setInviteCode}
            autoComplete="off"
            hint="From your invite link or from the person who invited you."
            required
            error={inviteError}
          />
        )}
        {withCaptcha && (
          <fieldset class="captcha">
            <legend>Show you are a person</legend>
            {captcha ? (
              <>
                <img
                  src={captcha.image}
                  alt="A code of five letters and digits, drawn distorted. Cannot see it? Answer the question below instead."
                  width={200}
                  height={70}
                />
                <p class="captcha-question">
                  <span>Or answer this question:</span> <strong>{captcha.question}</strong>
                </p>
              </>
            ) : (
              <Loading label="Loading the check…" />
            )}
            <button type="button" onClick={newCaptcha}>
              New code and question
            </button>
            <Field
              label="Code"
              value={answer}
              onValue={setAnswer}
              autoComplete="off"
              hint="The code in the picture, or the answer to the question. Case does not matter."
              required
              error={captchaError}
            />
          </fieldset>
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
        <FormError message={error && !fieldNamed && !captchaError && !inviteError ? describeError(error) : null} />
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
