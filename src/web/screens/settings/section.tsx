import type { ComponentChildren } from "preact";
import { useId } from "preact/hooks";
import { t } from "../../lib/i18n";

/** One part of the settings page: a card that is a landmark named by its heading. */
export function Section({
  title,
  children,
  intro,
}: {
  title: string;
  intro?: ComponentChildren;
  children: ComponentChildren;
}) {
  const id = useId();
  return (
    <section class="card settings-section" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {intro && <p class="hint">{intro}</p>}
      {children}
    </section>
  );
}

/**
 * A field error in a sentence: the server names the field and says what is wrong ("is
 * incorrect", in the app's language), so the label starts it; a message that is already a
 * sentence stays as it is.
 */
export function fieldMessage(label: string, message: string | undefined): string | undefined {
  if (!message) return undefined;
  return /^\p{Ll}/u.test(message) ? t("errors.field", { label, message }).replace(/\.\.$/, ".") : message;
}
