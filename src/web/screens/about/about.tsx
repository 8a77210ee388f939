import { useEffect, useState } from "preact/hooks";
import { RulesList } from "../../components/instance";
import { FormError } from "../../components/field";
import { Loading, Page } from "../../components/page";
import { describeError } from "../../lib/api";
import { contactHref, identity, instanceName, loadIdentity } from "../../lib/instance";
import { signedIn } from "../../lib/session";
import { t } from "../../lib/i18n";

const JOINING = new Set(["open", "captcha", "closed"]);

/** /about: what the instance is, its rules and how to reach its administrators, for everyone. */
export function About() {
  const [error, setError] = useState<string | null>(null);
  // read again on opening: an administrator may have changed it since the app started
  useEffect(() => {
    loadIdentity().catch((err) => setError(describeError(err)));
  }, []);
  const info = identity.value;
  const href = info?.contact ? contactHref(info.contact) : null;
  return (
    <Page title={t("about.title", { name: instanceName.value })}>
      {!info && !error && <Loading />}
      <FormError message={error} />
      {info && (
        <div class="about">
          <section class="card" aria-labelledby="about-description">
            <h2 id="about-description">{info.name}</h2>
            <p>{info.description || t("about.noDescription")}</p>
            {!signedIn.value && (
              <p>
                {JOINING.has(info.registration) ? t(`about.joining.${info.registration as "open"}`) : ""}{" "}
                {info.registration !== "closed" && <a href="/auth/register">{t("nav.register")}</a>}
              </p>
            )}
          </section>
          <section class="card" aria-labelledby="about-rules">
            <h2 id="about-rules">{t("about.rules")}</h2>
            {info.rules.length ? <RulesList rules={info.rules} /> : <p>{t("about.noRules")}</p>}
          </section>
          <section class="card" aria-labelledby="about-contact">
            <h2 id="about-contact">{t("about.contact")}</h2>
            {info.contact ? (
              <p>
                {t("about.administrators")} {href ? <a href={href}>{info.contact}</a> : info.contact}
              </p>
            ) : (
              <p>{t("about.noContact")}</p>
            )}
          </section>
        </div>
      )}
    </Page>
  );
}
