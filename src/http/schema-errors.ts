import type { FieldErrors } from "../lib/errors";

/** One problem Elysia's schema check found (TypeBox's ValueError, as Elysia passes it on). */
interface SchemaIssue {
  type?: number;
  path?: string;
  value?: unknown;
  schema?: Record<string, unknown>;
}

/**
 * What is wrong with a field, in the words the service's own checks use ("is required", "must
 * be at most 64 characters"), not TypeBox's ("Expected property 'email' to be string but found:
 * undefined"): the web app shows it beside the field, and src/locales/errors-*.ts word it in
 * other languages. Numbers are TypeBox's ValueErrorType.
 */
function schemaMessage({ type, value, schema = {} }: SchemaIssue): string {
  if (value === undefined && type !== 42) return "is required";
  switch (type) {
    case 54:
      return "must be text";
    case 27:
      return "must be a whole number";
    case 41:
      return "must be a number";
    case 14:
      return "must be true or false";
    case 6:
      return "must be an array";
    case 46:
      return "must be an object";
    case 35:
      return "must be null";
    case 51:
      return `must be at most ${schema.maxLength} characters`;
    case 52:
      return schema.minLength === 1 ? "must not be empty" : `must be at least ${schema.minLength} characters`;
    case 50:
      return schema.format === "email" ? "must be an e-mail address" : "is not in the expected format";
    case 53:
      return "is not in the expected format";
    case 24:
    case 38:
      return `must be at most ${schema.maximum}`;
    case 25:
    case 39:
      return `must be at least ${schema.minimum}`;
    case 22:
    case 36:
      return `must be less than ${schema.exclusiveMaximum}`;
    case 23:
    case 37:
      return `must be more than ${schema.exclusiveMinimum}`;
    case 2:
      return `must have at most ${schema.maxItems} items`;
    case 4:
      return `must have at least ${schema.minItems} items`;
    case 5:
      return "must not repeat an item";
    case 42:
      return "is not a field of this request";
    case 32:
      return `must be exactly ${JSON.stringify(schema.const)}`;
    case 62: {
      const options = (schema.anyOf as Array<{ const?: unknown }> | undefined)?.map((option) => option.const);
      return options?.length && options.every((option) => option !== undefined)
        ? `must be one of ${options.map((option) => JSON.stringify(option)).join(", ")}`
        : "is not a valid value";
    }
    default:
      return "is invalid";
  }
}

/** The fields a failed schema check names, each with what is wrong with it. */
export function schemaFieldErrors(error: unknown): FieldErrors {
  const out: FieldErrors = {};
  const all = (error as { all?: SchemaIssue[] }).all ?? [];
  for (const issue of all) {
    const field = (issue.path ?? "").replace(/^\//, "").replace(/\//g, ".") || "body";
    const message = schemaMessage(issue);
    const list = (out[field] ??= []);
    if (!list.includes(message)) list.push(message);
  }
  if (Object.keys(out).length === 0) out.body = ["is invalid"];
  return out;
}
