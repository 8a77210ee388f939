import { t, type TSchema } from "elysia";

/*
 * The building blocks of the Client API's resource schemas (src/contract/resources.ts and
 * admin.ts): the server documents its answers with them in /api/openapi.json, and the web app
 * derives the types of what it reads from them.
 */

/** A resource object of a response: the fields listed are always sent; others may be added (clients ignore them). */
export const Resource = <P extends Record<string, TSchema>>(properties: P, description?: string) =>
  t.Object(properties, { additionalProperties: true, ...(description ? { description } : {}) });

/** `pageInfo` of a cursor-paged list: pass `nextCursor` back as `?cursor=` for the next page; null at the end. */
export const PageInfo = t.Object(
  { nextCursor: t.Union([t.String(), t.Null()]) },
  { additionalProperties: true, description: "pass nextCursor as ?cursor= for the next page; null at the end" },
);

/** An ISO 8601 time in UTC. */
export const Time = t.String({ format: "date-time" });
export const NullableTime = t.Union([Time, t.Null()]);
export const NullableString = t.Union([t.String(), t.Null()]);
export const NullableInteger = t.Union([t.Integer(), t.Null()]);

/** An object whose fields are not listed here (exports, free-form details). */
export const Open = t.Object({}, { additionalProperties: true });

/** `{KEY: [ITEM], pageInfo}`: one page of a cursor-paged list. */
export const Page = <K extends string, S extends Parameters<typeof t.Array>[0]>(key: K, item: S) =>
  t.Object({ [key]: t.Array(item), pageInfo: PageInfo } as { [P in K]: ReturnType<typeof t.Array<S>> } & {
    pageInfo: typeof PageInfo;
  });
