import { FormError } from "../../components/field";
import { t } from "../../lib/i18n";
import { api, describeError } from "../../lib/api";
import { useAction } from "../../lib/use-action";

/**
 * A start link's prompt: what pressing START sends to the bot (`/start <label>`) and what the
 * bot learns from it; sent once per press, never on opening the link.
 */
export function StartPrompt({ bot, label, onStarted }: { bot: string; label: string; onStarted: () => void }) {
  const { busy, error, run } = useAction();
  const start = run(async () => {
    await api.post(`/social/users/${encodeURIComponent(bot)}/message`, { start: label });
    onStarted();
  });
  return (
    <section class="link-prompt start-prompt" aria-label={t("messages.startPrompt.label")}>
      <p>
        {t("messages.startPrompt.before", { bot })} <code>/start {label}</code>
        {t("messages.startPrompt.after")}
      </p>
      <FormError message={error ? describeError(error) : null} />
      <button type="button" class="primary" onClick={start} disabled={busy}>
        START
      </button>
    </section>
  );
}
