import { t, ValidationError } from "elysia";
import { Type } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";

/*
 * Elysia's t.Integer() compiles a TypeBox checker for its bounds when the schema is declared.
 * The Client API declares dozens (ids, page sizes, the documented responses) when it is built
 * (on its first request): CPU spent on checkers most requests never reach. This
 * t.Integer makes the same schema (the OpenAPI document does not change) and compiles its
 * checker when it first decodes a value. wiring.ts imports this module, so it is in place
 * before the Client API's modules are loaded; lazy-integer.test.ts holds it to Elysia's own.
 */

const integerOf = t.Integer;

function lazyInteger(property?: Parameters<typeof integerOf>[0]) {
  let checker: TypeCheck<ReturnType<typeof Type.Integer>> | null = null;
  const bounds = Type.Integer(property);
  return t
    .Transform(t.Union([t.String({ format: "integer", default: 0 }), Type.Integer(property)], property))
    .Decode((value) => {
      const number = +value;
      checker ??= TypeCompiler.Compile(bounds);
      // the arguments Elysia's own t.Integer gives it, so the 422 reads the same
      if (!checker.Check(number))
        throw new ValidationError("property", bounds, number, checker.Errors(number) as never);
      return number;
    })
    .Encode((value) => value) as unknown as ReturnType<typeof integerOf>;
}

/** Elysia's own t.Integer, for the test that holds the lazy one to it. */
export const elysiaInteger = integerOf;

t.Integer = lazyInteger;
