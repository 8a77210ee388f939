import { Elysia, type AnyElysia } from "elysia";
import { clientApiDocument } from "./openapi";

type Json = Record<string, unknown>;

/**
 * /api/openapi.json: the Client API's OpenAPI document, made from the routes of API on first
 * request (a few ms) and kept, so start-up pays nothing for it.
 */
export function referenceRoutes(api: AnyElysia) {
  let document: string | null = null;
  const json = (body: string) =>
    new Response(body, { headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-cache" } });
  return new Elysia({ name: "client-reference" }).get(
    "/openapi.json",
    () => json((document ??= JSON.stringify(clientApiDocument(api) satisfies Json))),
    { detail: { hide: true } },
  );
}
