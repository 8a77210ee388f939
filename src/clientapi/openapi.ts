import type { AnyElysia } from "elysia";
import { toOpenAPISchema } from "@elysiajs/openapi/openapi";
import { VERSION } from "../config/layout";
import { ACCESS_COOKIE, CSRF_COOKIE } from "../http/cookies";
import { SESSION_SCHEME } from "../http/context";
import { ERROR_STATUS, ROUTE_ERRORS_KEY, type ErrorCode } from "./docs";

/*
 * The OpenAPI 3.1 document of the Client API (/api/openapi.json), made from the routes Elysia
 * holds: their request schemas (the ones that validate requests) and the `detail` each route
 * declares with doc() (src/clientapi/docs.ts). What every route of a kind shares (the envelope,
 * the session and CSRF requirements, the schema, rate-limit and server errors) is added here.
 */

type Json = Record<string, any>;

const MUTATING = new Set(["post", "put", "patch", "delete"]);

const CSRF_SCHEME = "csrf";

/** Elysia's path of a route as it appears in the document (`:id` → `{id}`, no trailing slash). */
export const documentPath = (path: string) => path.replace(/:([^/]+)/g, "{$1}").replace(/(.)\/$/, "$1") || "/";

const ErrorEnvelope = {
  type: "object",
  required: ["success", "error"],
  properties: {
    success: { const: false },
    error: {
      type: "object",
      required: ["code", "message", "details"],
      properties: {
        code: { type: "string", enum: Object.keys(ERROR_STATUS) },
        message: { type: "string", description: "for people; may change, parse `code`" },
        details: {
          description: "for validation errors `{fieldErrors: {<field>: [<message>]}}`; otherwise an empty array",
          oneOf: [
            {
              type: "object",
              properties: {
                fieldErrors: { type: "object", additionalProperties: { type: "array", items: { type: "string" } } },
              },
            },
            { type: "array", maxItems: 0 },
          ],
        },
      },
    },
  },
};

const DESCRIPTION = `The cookie-session JSON API the web app uses, for programs acting as their owner's account.

**Envelope.** Every answer is \`{success: true, data}\` or \`{success: false, error: {code, message, details}}\`;
tell them apart by \`success\`, not by the status. Fields may be added to any object: ignore those you do not know.

**Signing in.** \`GET /api/auth/csrf\` sets the \`${CSRF_COOKIE}\` cookie and returns the same value as \`csrfToken\`;
send it as the \`x-csrf-token\` header on every POST, PUT, PATCH and DELETE (missing or different: 403
CSRF_TOKEN_INVALID). \`POST /api/auth/login\` sets the session cookies (\`${ACCESS_COOKIE}\`, 15 minutes, renewed
on any request while \`auth_refresh_token\` lives, 30 days). Keep cookies as a browser does.

**Paging.** Lists take \`?cursor=&limit=\` and answer \`pageInfo.nextCursor\`: pass it back as \`cursor\` for
the next page; it is null at the end.

**Limits.** 20 requests per second per address (429 RATE_LIMITED with \`Retry-After\`); request bodies
up to 64 KB except uploads. The Bot API is described at [/api/bot-docs](/api/bot-docs).`;

/** Which error codes a route can answer, by status: the route's own plus those its kind implies. */
function errorsOf(route: { method: string; path: string; hooks: Json }, operation: Json): Map<number, Set<string>> {
  const codes: Array<[number, string]> = [
    [429, "RATE_LIMITED"],
    [500, "INTERNAL_ERROR"],
    [503, "SERVICE_UNAVAILABLE"],
  ];
  const method = route.method.toLowerCase();
  if (MUTATING.has(method)) codes.push([403, "CSRF_TOKEN_INVALID"]);
  if (operation.security?.some((s: Json) => SESSION_SCHEME in s))
    codes.push([401, "UNAUTHORIZED"], [403, "ACCOUNT_DISABLED"], [403, "DEVICE_BANNED"]);
  const { body, query, params } = route.hooks;
  if (body || query || params) codes.push([422, "VALIDATION_ERROR"]);
  if (MUTATING.has(method)) codes.push([400, "VALIDATION_ERROR"], [413, "VALIDATION_ERROR"]);
  if (route.path.includes(":")) codes.push([404, "NOT_FOUND"]);
  for (const code of (operation[ROUTE_ERRORS_KEY] ?? []) as ErrorCode[]) codes.push([ERROR_STATUS[code], code]);
  const byStatus = new Map<number, Set<string>>();
  for (const [status, code] of codes) {
    let set = byStatus.get(status);
    if (!set) byStatus.set(status, (set = new Set()));
    set.add(code);
  }
  return byStatus;
}

const errorResponse = (codes: Set<string>) => ({
  description: [...codes].join(", "),
  content: {
    "application/json": {
      schema: {
        allOf: [
          { $ref: "#/components/schemas/ErrorEnvelope" },
          { type: "object", properties: { error: { type: "object", properties: { code: { enum: [...codes] } } } } },
        ],
      },
    },
  },
});

/** The tag of a path: its area (`/api/social/posts/{id}` → posts, `/api/auth/2fa/…` → auth). */
function tagOf(path: string): string {
  const [, , first, second] = path.split("/");
  return first === "social" || first === "admin" ? `${first === "admin" ? "admin " : ""}${second}` : first!;
}

/** The OpenAPI 3.1 document of the Client API routes held by API (the app its routes were mounted on). */
export function clientApiDocument(api: AnyElysia): Json {
  const generated = toOpenAPISchema(api, undefined, undefined, undefined, "3.1.0") as Json;
  const paths: Json = {};
  for (const route of api.routes as Array<{ method: string; path: string; hooks: Json }>) {
    if (route.hooks.detail?.hide) continue;
    const method = route.method.toLowerCase();
    const from = generated.paths[route.path.replace(/:([^/]+)/g, "{$1}")]?.[method];
    if (!from) throw new Error(`the OpenAPI generator left out ${route.method} ${route.path}`);
    const path = documentPath(route.path);
    const operation: Json = { ...from, operationId: from.operationId.replace(/Index$/, "") };
    delete operation[ROUTE_ERRORS_KEY];
    // a body that is not the route's own (multipart) is described by the route; JSON bodies only as JSON
    if (operation.requestBody?.content?.["application/json"] && !route.hooks.detail?.requestBody)
      operation.requestBody = {
        ...operation.requestBody,
        content: { "application/json": operation.requestBody.content["application/json"] },
      };
    const signedIn = operation.security?.some((s: Json) => SESSION_SCHEME in s) ?? false;
    const needsCsrf = MUTATING.has(method);
    operation.security = signedIn
      ? [{ [SESSION_SCHEME]: [], ...(needsCsrf ? { [CSRF_SCHEME]: [] } : {}) }]
      : needsCsrf
        ? [{ [CSRF_SCHEME]: [] }]
        : [];
    operation.tags = [tagOf(path)];
    operation.responses = { ...(operation.responses ?? {}) };
    for (const [status, codes] of errorsOf(route, { ...from, security: operation.security }))
      operation.responses[status] = errorResponse(codes);
    operation[ROUTE_ERRORS_KEY] = [...new Set((Object.values(operation.responses) as Json[]).flatMap(errorCodesOf))];
    if (method === "ws") {
      // a WebSocket is opened by a GET with Upgrade; OpenAPI has no method of its own for it
      const { 200: _, ...errors } = operation.responses;
      operation.responses = { 101: { description: "Switching Protocols: JSON frames {event, id, data}" }, ...errors };
      paths[path] = { ...paths[path], get: operation };
    } else paths[path] = { ...paths[path], [method]: operation };
  }
  return {
    openapi: "3.1.0",
    info: { title: "socialctl Client API", version: VERSION, description: DESCRIPTION },
    tags: [...new Set(Object.keys(paths).map(tagOf))].sort().map((name) => ({ name })),
    paths,
    components: {
      schemas: { ...generated.components.schemas, ErrorEnvelope },
      securitySchemes: {
        [SESSION_SCHEME]: {
          type: "apiKey",
          in: "cookie",
          name: ACCESS_COOKIE,
          description:
            "session cookies set by POST /api/auth/login (auth_access_token, renewed through auth_refresh_token)",
        },
        [CSRF_SCHEME]: {
          type: "apiKey",
          in: "header",
          name: "x-csrf-token",
          description: `the value of the ${CSRF_COOKIE} cookie (GET /api/auth/csrf), on every POST, PUT, PATCH and DELETE`,
        },
      },
    },
  };
}

const errorCodesOf = (response: Json): string[] =>
  response?.content?.["application/json"]?.schema?.allOf?.[1]?.properties?.error?.properties?.code?.enum ?? [];
