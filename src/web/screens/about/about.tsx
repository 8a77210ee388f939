import { useEffect, useState } from "preact/hooks";
import { RulesList } from "../../components/instance";
import { FormError } from "../../components/field";
import { Loading, Page } from "../../components/page";
import { describeError } from "../../lib/api";
import { contactHref, identity, instanceName, loadIdentity } from "../../lib/instance";
import { signedIn } from "../../lib/session";

const JOINING: Record<string, string> = {
  open: "Anyone may create an account.",
  captcha: "Anyone may create an account after a check that keeps out programs.",
  closed: "New accounts are made by the administrators: ask them for one.",
};

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
    <Page title={`About ${instanceName.value}`}>
      {!info && !error && <Loading />}
      <FormError message={error} />
      {info && (
        <div class="about">
          <section class="card" aria-labelledby="about-description">
            <h2 id="about-description">{info.name}</h2>
            <p>{info.description || "The administrators have not described this instance yet."}</p>
            {!signedIn.value && (
              <p>
                {JOINING[info.registration] ?? ""}{" "}
                {info.registration !== "closed" && <a href="/auth/register">Create an account</a>}
              </p>
            )}
          </section>
          <section class="card" aria-labelledby="about-rules">
            <h2 id="about-rules">Rules</h2>
            {info.rules.length ? (
              <RulesList rules={info.rules} />
            ) : (
              <p>This instance has no rules of its own beyond common decency.</p>
            )}
          </section>
          <section class="card" aria-labelledby="about-contact">
            <h2 id="about-contact">Contact</h2>
            {info.contact ? (
              <p>The administrators: {href ? <a href={href}>{info.contact}</a> : info.contact}</p>
            ) : (
              <p>The administrators have not given a contact address.</p>
            )}
          </section>
        </div>
      )}
    </Page>
  );
}
