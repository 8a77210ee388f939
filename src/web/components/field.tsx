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
  const id = useId();
  const described = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {rows ? (
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
      )}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
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
