import { useState } from "preact/hooks";
import { ApiError } from "./api";

/**
 * The state of a form's submit or a button's action: `busy` while it runs, `error` when it
 * failed (shown beside the fields it names, or as a form error). `run(fn)` makes the
 * handler: it prevents the browser's own submit, clears the last error and catches the new one.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run =
    (fn: () => Promise<unknown>) =>
    async (e?: Event): Promise<void> => {
      e?.preventDefault();
      setBusy(true);
      setError(null);
      try {
        await fn();
      } catch (err) {
        setError(err);
      } finally {
        setBusy(false);
      }
    };
  const apiError = error instanceof ApiError ? error : null;
  return { busy, error, apiError, setError, run };
}
