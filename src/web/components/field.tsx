import type { ComponentChildren } from "preact";
import { useId } from "preact/hooks";

interface InputProps {
  type?: "text" | "email" | "password" | "search" | "url" | "number";
  autoComplete?: string;
  inputMode?: "text" | "numeric" | "email" | "search";
  required?: boolean;
  autoFocus?: boolean;
  maxLength?: number;
  minLength?: number;
  placeholder?: string;
  readOnly?: boolean;
}

/**
 * A labelled control's frame: its label, hint and the server's error, the control in between
 * made by CONTROL from its id and the ids that describe it (for aria-describedby).
 */
export function FieldFrame({
  label,
  hint,
  error,
  class: className = "field",
  control,
}: {
  label: string;
  hint?: string;
  error?: string;
  class?: string;
  control: (id: string, describedBy: string | undefined) => ComponentChildren;
}) {
  const id = useId();
  const described = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  return (
    <div class={className}>
      <label for={id}>{label}</label>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {control(id, described)}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** A labelled input (a textarea of ROWS lines when given) with its hint and the server's error beside it (aria-describedby). */
export function Field(
  props: InputProps & {
    label: string;
    error?: string;
    hint?: string;
    value: string;
    onValue: (value: string) => void;
    rows?: number;
  },
) {
  const { label, error, hint, value, onValue, type = "text", rows, ...input } = props;
  return (
    <FieldFrame
      label={label}
      hint={hint}
      error={error}
      control={(id, described) =>
        rows ? (
          <textarea
            {...(input as Record<string, unknown>)}
            rows={rows}
            id={id}
            value={value}
            onInput={(e) => onValue(e.currentTarget.value)}
            aria-invalid={error ? true : undefined}
            aria-describedby={described}
          />
        ) : (
          <input
            {...({ ...input, type } as Record<string, unknown>)}
            id={id}
            value={value}
            onInput={(e) => onValue(e.currentTarget.value)}
            aria-invalid={error ? true : undefined}
            aria-describedby={described}
          />
        )
      }
    />
  );
}

/** A form-level error (rate limits, wrong credentials), announced when it appears. */
export function FormError({ message }: { message: string | null | undefined }) {
  return message ? (
    <p class="form-error" role="alert">
      {message}
    </p>
  ) : null;
}

/** A success or progress note, announced politely. */
export function Notice({ message }: { message: string | null | undefined }) {
  return (
    <p class="notice" role="status" hidden={!message}>
      {message}
    </p>
  );
}
