import type { ComponentChildren } from "preact";
import { useId, useState } from "preact/hooks";
import { api, describeError } from "../lib/api";
import { useAction } from "../lib/use-action";
import { Dialog } from "./dialog";
import { FormError } from "./field";
import { t } from "../lib/i18n";
import { REASON_LABEL } from "../lib/reports";

/** What a person can report: the type and id POST /api/social/reports takes (a username for a user or a bot). */
export interface ReportTarget {
  type: "post" | "comment" | "story" | "message" | "user" | "bot";
  id: string;
  /** what the dialog's title names: "@ann's post" (in Russian the accusative: "пост @ann") */
  label: string;
}

const REASONS = ["spam", "abuse", "illegal", "other"] as const;

const MAX_COMMENT = 1000;

/** Sends a report; resolves once the instance has stored it. */
export async function sendReport(target: ReportTarget, reason: string, comment: string): Promise<void> {
  await api.post("/social/reports", {
    target: { type: target.type, id: target.id },
    reason,
    ...(comment.trim() ? { comment: comment.trim() } : {}),
  });
}

/**
 * The report dialog: a reason (required), an optional comment, then a confirmation. ONSENT
 * runs once the report is stored (the bot chat blocks the bot then).
 */
export function ReportDialog({
  target,
  open,
  onClose,
  onSent,
  confirmLabel = t("common.report.send"),
  sentText,
  children,
}: {
  target: ReportTarget;
  open: boolean;
  onClose: () => void;
  onSent?: () => Promise<void> | void;
  confirmLabel?: string;
  /** said after the thanks (what else happened: the bot is blocked) */
  sentText?: string | null;
  /** more choices, after the comment */
  children?: ComponentChildren;
}) {
  const [reason, setReason] = useState<string>("");
  const [comment, setComment] = useState("");
  const [sent, setSent] = useState(false);
  const [missingReason, setMissingReason] = useState(false);
  const { busy, error, run } = useAction();
  const id = useId();
  const close = () => {
    setReason("");
    setComment("");
    setSent(false);
    setMissingReason(false);
    onClose();
  };
  const submit = run(async () => {
    if (!reason) {
      setMissingReason(true);
      return;
    }
    await sendReport(target, reason, comment);
    await onSent?.();
    setSent(true);
  });
  return (
    <Dialog
      open={open}
      title={sent ? t("common.report.sent") : t("common.report.title", { target: target.label })}
      onClose={close}
    >
      {sent ? (
        <div class="report-sent">
          <p role="status">
            {t("common.report.thanks")}
            {sentText && ` ${sentText}`}
          </p>
          <div class="actions">
            <button type="button" class="primary" onClick={close} autoFocus>
              {t("common.close")}
            </button>
          </div>
        </div>
      ) : (
        <form class="form report-form" onSubmit={submit} noValidate>
          <fieldset aria-describedby={missingReason ? `${id}-reason-error` : undefined}>
            <legend>{t("common.report.why")}</legend>
            {REASONS.map((r) => (
              <label key={r} class="choice report-reason">
                <input
                  type="radio"
                  name={`${id}-reason`}
                  value={r}
                  checked={reason === r}
                  aria-describedby={`${id}-${r}-hint`}
                  onChange={() => (setReason(r), setMissingReason(false))}
                />
                <span>
                  {REASON_LABEL[r]}
                  <span class="hint" id={`${id}-${r}-hint`}>
                    {t(`common.report.hints.${r}`)}
                  </span>
                </span>
              </label>
            ))}
            {missingReason && (
              <p class="field-error" id={`${id}-reason-error`} role="alert">
                {t("common.report.chooseReason")}
              </p>
            )}
          </fieldset>
          <div class="field">
            <label for={`${id}-comment`}>{t("common.report.comment")}</label>
            <textarea
              id={`${id}-comment`}
              rows={3}
              maxLength={MAX_COMMENT}
              value={comment}
              onInput={(e) => setComment(e.currentTarget.value)}
            />
          </div>
          {children}
          <p class="hint">{t("common.report.private")}</p>
          <FormError message={error ? describeError(error) : null} />
          <div class="actions">
            <button type="submit" class="primary" disabled={busy}>
              {confirmLabel}
            </button>
            <button type="button" onClick={close}>
              {t("common.cancel")}
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}

/** The "Report" control of a post, comment, story, profile, message or bot, with its dialog. */
export function ReportButton({ target, class: className }: { target: ReportTarget; class?: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" class={className} onClick={() => setOpen(true)}>
        {t("common.report.button")}
      </button>
      {open && <ReportDialog target={target} open onClose={() => setOpen(false)} />}
    </>
  );
}
