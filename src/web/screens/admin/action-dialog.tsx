import { useLayoutEffect, useState } from "preact/hooks";
import { Dialog } from "../../components/dialog";
import { Field, FormError } from "../../components/field";
import { describeError } from "../../lib/api";
import { t } from "../../lib/i18n";
import { useAction } from "../../lib/use-action";

export interface DialogField {
  name: string;
  label: string;
  type?: "text" | "password" | "number";
  hint?: string;
  initial?: string;
  required?: boolean;
}

export interface PendingAction {
  title: string;
  /** what will happen, in a sentence */
  text: string;
  confirm: string;
  danger?: boolean;
  fields?: DialogField[];
  /** runs the action with the fields' values; its errors are shown in the dialog */
  run: (values: Record<string, string>) => Promise<void>;
}

/** Confirms an admin action (and asks for its values) in a modal dialog; errors stay in it, beside their fields. */
export function ActionDialog({ action, onClose }: { action: PendingAction | null; onClose: () => void }) {
  const [values, setValues] = useState<Record<string, string>>({});
  const { busy, error, apiError, setError, run } = useAction();
  // in the commit that opens the dialog (Dialog shows it there too): reset after the next frame,
  // it overwrote what was typed at once (a CI run blocked posting for the default 60 minutes
  // after "0" had been typed)
  useLayoutEffect(() => {
    setValues(Object.fromEntries((action?.fields ?? []).map((f) => [f.name, f.initial ?? ""])));
    setError(null);
  }, [action]);
  const named = new Set((action?.fields ?? []).map((f) => f.name));
  const fieldless = apiError && Object.keys(apiError.fieldErrors).some((k) => named.has(k)) ? null : error;
  return (
    <Dialog open={!!action} title={action?.title ?? ""} onClose={onClose}>
      {action && (
        <form
          class="form"
          onSubmit={run(async () => {
            await action.run(values);
            onClose();
          })}
        >
          <p>{action.text}</p>
          {(action.fields ?? []).map((f) => (
            <Field
              key={f.name}
              label={f.label}
              type={f.type ?? "text"}
              hint={f.hint}
              required={f.required}
              autoComplete={f.type === "password" ? "new-password" : "off"}
              value={values[f.name] ?? ""}
              onValue={(v) => setValues((prev) => ({ ...prev, [f.name]: v }))}
              error={apiError?.field(f.name)}
            />
          ))}
          <FormError message={fieldless ? describeError(fieldless) : null} />
          <div class="actions">
            <button type="submit" class={action.danger ? "danger" : "primary"} disabled={busy}>
              {action.confirm}
            </button>
            <button type="button" onClick={onClose}>
              {t("common.cancel")}
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
