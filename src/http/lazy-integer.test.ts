import { describe, expect, test } from "bun:test";
import { t } from "elysia";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { elysiaInteger } from "./lazy-integer";

// t.Integer compiled on first use (lazy-integer.ts) against Elysia's own, which compiles when declared.
const OPTIONS = [undefined, {}, { minimum: 1 }, { minimum: 0, maximum: 11 }, { minimum: 1, maximum: 100, default: 20 }];
const INPUTS: unknown[] = ["5", "0", "-3", "12", "101", "1.5", "abc", "", 7, 0, 100, 2.5, -1, null];

/** The schema as JSON, symbols (TypeBox's Kind) included. */
const shape = (schema: unknown): unknown =>
  JSON.parse(
    JSON.stringify(schema, function (this: unknown, _key, value) {
      if (value && typeof value === "object" && !Array.isArray(value)) {
        const out: Record<string, unknown> = { ...value };
        for (const sym of Object.getOwnPropertySymbols(value)) {
          const v = (value as Record<symbol, unknown>)[sym];
          out[`@${sym.description}`] = typeof v === "object" && v !== null ? Object.keys(v) : v;
        }
        return out;
      }
      return value;
    }),
  );

/** What decoding INPUT against SCHEMA gives: the value, or the error's message. */
function decoded(schema: Parameters<typeof TypeCompiler.Compile>[0], input: unknown): unknown {
  const checker = TypeCompiler.Compile(t.Object({ n: schema }));
  try {
    return checker.Decode({ n: input });
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

describe("t.Integer compiled on first use", () => {
  test("is the schema Elysia's own t.Integer makes, so the OpenAPI document is unchanged", () => {
    expect(t.Integer).not.toBe(elysiaInteger);
    for (const options of OPTIONS) expect(shape(t.Integer(options))).toEqual(shape(elysiaInteger(options)));
  });

  test("decodes and refuses every input as Elysia's own does", () => {
    for (const options of OPTIONS)
      for (const input of INPUTS)
        expect([options, input, decoded(t.Integer(options), input)]).toEqual([
          options,
          input,
          decoded(elysiaInteger(options), input),
        ]);
  });
});
