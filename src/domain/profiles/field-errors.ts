import type { FieldErrors } from "../../lib/errors";

/**
 * Runs FN and, when it fails with a VALIDATION_ERROR, adds its field errors to ERRORS and
 * returns undefined, so a request can report every bad field at once.
 */
export async function collectFieldErrors<T>(errors: FieldErrors, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (err) {
    const fieldErrors = (err as { details?: { fieldErrors?: FieldErrors } }).details?.fieldErrors;
    if (!fieldErrors) throw err;
    for (const [field, list] of Object.entries(fieldErrors)) (errors[field] ??= []).push(...list);
    return undefined;
  }
}
