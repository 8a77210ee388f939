import { identity, instanceName } from "../lib/instance";
import { t } from "../lib/i18n";

/** The instance's rules, numbered as people cite them ("rule 2"). */
export function RulesList({ rules }: { rules: string[] }) {
  return (
    <ol class="rules">
      {rules.map((rule, i) => (
        <li key={i}>{rule}</li>
      ))}
    </ol>
  );
}

/** What a visitor reads before signing in or registering: the instance's name, description, and where its rules are. */
export function InstanceIntro() {
  const info = identity.value;
  return (
    <section class="card instance-intro" aria-labelledby="instance-intro-name">
      <h2 id="instance-intro-name">{t("auth.intro.welcome", { name: instanceName.value })}</h2>
      {info?.description && <p class="instance-description">{info.description}</p>}
      <p>
        <a href="/about">{info?.rules.length ? t("auth.intro.aboutAndRules") : t("auth.intro.about")}</a>
      </p>
    </section>
  );
}
