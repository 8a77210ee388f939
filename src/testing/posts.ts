import { expect } from "bun:test";
import type { TestClient } from "./client";

/** Creates a post through the API (expecting success) and returns it as the API shows it. */
export async function postAs(client: TestClient, body: string | Record<string, unknown>): Promise<any> {
  const res = await client.post("/api/social/posts", typeof body === "string" ? { content: body } : body);
  expect(res.status).toBe(200);
  return res.body.data.post;
}

/** Creates a text post and returns its id. */
export const postIdAs = async (client: TestClient, content: string): Promise<string> =>
  (await postAs(client, content)).id;
