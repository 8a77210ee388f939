import { useContext, useState } from "preact/hooks";
import { t } from "../../lib/i18n";
import { api, describeError } from "../../lib/api";
import { ChatActionsContext } from "./actions";
import type { CallbackAnswer, ChatMessage, InlineButton } from "../../lib/types";

/**
 * The inline keyboard under a bot's message: every button a real button named by its text.
 * A callback button shows a spinner until the bot answers (or the server gives up), then the
 * answer as a toast, or as a modal alert when the bot asked for show_alert.
 */
export function InlineKeyboard({ message }: { message: ChatMessage }) {
  const settled = message.invoice && (message.invoice.status === "paid" || message.invoice.status === "refunded");
  // a paid invoice's Pay button has nothing left to do
  const rows = (message.replyMarkup?.inline_keyboard ?? [])
    .map((row) => row.filter((b) => !(settled && b.pay)))
    .filter((row) => row.length);
  if (!rows.length) return null;
  return (
    <div class="inline-keyboard" role="group" aria-label={t("messages.buttons.label")}>
      {rows.map((row, i) => (
        <div class="ik-row" key={i}>
          {row.map((b, j) => (
            <KeyboardButton key={j} button={b} message={message} />
          ))}
        </div>
      ))}
    </div>
  );
}

function KeyboardButton({ button, message }: { button: InlineButton; message: ChatMessage }) {
  const actions = useContext(ChatActionsContext)!;
  const [busy, setBusy] = useState(false);

  async function press() {
    if (button.callback_data !== undefined) {
      setBusy(true);
      try {
        const { answer } = await api.post<{ answer: CallbackAnswer }>(
          `/social/messages/${message.conversationId}/${message.id}/callback`,
          { data: button.callback_data },
        );
        if (answer?.text) (answer.showAlert ? actions.alert : actions.toast)(answer.text);
        else if (!answer) actions.toast(t("messages.buttons.noAnswer"));
        if (answer?.url) actions.confirmLink(answer.url);
      } catch (err) {
        actions.toast(describeError(err));
      } finally {
        setBusy(false);
      }
    } else if (button.url) actions.confirmLink(button.url);
    else if (button.copy_text) {
      try {
        await navigator.clipboard.writeText(button.copy_text.text);
        actions.toast(t("messages.menu.copied"));
      } catch {
        actions.toast(t("messages.buttons.notCopied"));
      }
    } else if (button.switch_inline_query_current_chat !== undefined) {
      actions.setDraft(`@${message.sender.username} ${button.switch_inline_query_current_chat}`);
    } else if (button.web_app) actions.openWebApp(message, button.web_app.url);
    else if (button.pay) actions.pay(message);
  }

  const external = button.url !== undefined || button.web_app !== undefined;
  return (
    <button
      type="button"
      class="ik-button"
      onClick={() => void press()}
      disabled={busy}
      aria-busy={busy || undefined}
      data-kind={kindOf(button)}
    >
      {busy && <span class="spinner" aria-hidden="true" />}
      {button.text}
      {external && (
        <span class="ik-corner" aria-hidden="true">
          ↗
        </span>
      )}
    </button>
  );
}

const kindOf = (b: InlineButton) =>
  b.callback_data !== undefined
    ? "callback"
    : b.url
      ? "url"
      : b.web_app
        ? "web_app"
        : b.copy_text
          ? "copy"
          : b.switch_inline_query_current_chat !== undefined
            ? "switch"
            : b.pay
              ? "pay"
              : "other";
