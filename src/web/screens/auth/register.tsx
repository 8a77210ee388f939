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
import { t } from "../../lib/i18n";
import { Sentence } from "../../components/sentence";

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
      <Page title={t("nav.register")}>
        <div class="card">
          <p>
            <Sentence
              text={t("auth.register.closed")}
              parts={{ link: <a href="/">{t("auth.register.closedSignIn")}</a> }}
            />
          </p>
        </div>
      </Page>
    );
  }

  if (mailedTo) {
    return (
      <Page title={t("nav.register")}>
        <div class="card">
          <Notice message={t("auth.register.mailed", { email: mailedTo })} />
          <p>
            <a href="/">{t("nav.signIn")}</a>
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
      ? t("auth.register.captchaWrong")
      : apiError?.field("captchaAnswer");
  const inviteError = apiError?.code.startsWith("INVITE_") ? apiError.message : apiError?.field("inviteCode");
  const fieldNamed =
    apiError &&
    Object.keys(apiError.fieldErrors).some((f) =>
      ["email", "username", "password", "displayName", "captchaAnswer", "inviteCode", "acceptRules"].includes(f),
    );
  return (
    <Page title={t("nav.register")}>
      <InstanceIntro />
      <form class="card form" onSubmit={submit}>
        <p class="hint">
          {mode === "open"
            ? t("auth.register.open")
            : withInvite
              ? t("auth.register.byInvite")
              : t("auth.register.withCaptcha")}
        </p>
        <Field
          label={t("auth.email")}
          type="email"
          value={email}
          onValue={setEmail}
          autoComplete="email"
          required
          error={apiError?.field("email")}
        />
        <Field
          label={t("auth.register.username")}
          value={username}
          onValue={setUsername}
          autoComplete="username"
          hint={t("auth.register.usernameHint")}
          required
          error={apiError?.field("username")}
        />
        <Field
          label={t("auth.register.displayName")}
          value={displayName}
          onValue={setDisplayName}
          autoComplete="name"
          error={apiError?.field("displayName")}
        />
        <Field
          label={t("auth.password")}
          type="password"
          value={password}
          onValue={setPassword}
          autoComplete="new-password"
          hint={t("auth.passwordHint")}
          required
          error={apiError?.field("password")}
        />
        {withInvite && (
          <Field
            label={t("auth.register.inviteCode")}
            value={inviteCode}
            onValue={setInviteCode}
            autoComplete="off"
            hint={t("auth.register.inviteHint")}
            required
            error={inviteError}
          />
        )}
        {withCaptcha && (
          <fieldset class="captcha">
            <legend>{t("auth.register.captcha")}</legend>
            {captcha ? (
              <>
                <img src={captcha.image} alt={t("auth.register.captchaAlt")} width={200} height={70} />
                <p class="captcha-question">
                  <span>{t("auth.register.captchaQuestion")}</span> <strong>{captcha.question}</strong>
                </p>
              </>
            ) : (
              <Loading label={t("auth.register.captchaLoading")} />
            )}
            <button type="button" onClick={newCaptcha}>
              {t("auth.register.captchaNew")}
            </button>
            <Field
              label={t("auth.signIn.code")}
              value={answer}
              onValue={setAnswer}
              autoComplete="off"
              hint={t("auth.register.captchaHint")}
              required
              error={captchaError}
            />
          </fieldset>
        )}
        {rules.length > 0 && (
          <fieldset class="accept-rules">
            <legend>{t("auth.register.rules", { name: identity.value!.name })}</legend>
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
              {t("auth.register.acceptRules")}
            </label>
            {apiError?.field("acceptRules") && (
              <p class="field-error" id="accept-rules-error">
                {t("auth.register.acceptRulesError")}
              </p>
            )}
          </fieldset>
        )}
        <FormError message={error && !fieldNamed && !captchaError && !inviteError ? describeError(error) : null} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {t("auth.register.submit")}
          </button>
          <a href="/">{t("auth.register.haveAccount")}</a>
        </div>
      </form>
    </Page>
  );
}
