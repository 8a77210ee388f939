import { expect } from "bun:test";
import type { App } from "../app";
import type { ConfigKey } from "../config";
import type { TestClient } from "./client";
import { signedInClient } from "./fixtures";
import { startTestServer, type TestServer } from "./server";

export interface AdminWorld {
  server: TestServer;
  /** signed in as an account with the admin flag */
  admin: TestClient;
  adminName: string;
  /** signed in as an ordinary person */
  person: TestClient;
}

/** A server with one signed-in administrator and one signed-in ordinary person. */
export async function adminWorld(overrides: Partial<Record<ConfigKey, unknown>> = {}): Promise<AdminWorld> {
  const server = await startTestServer(overrides);
  const admin = await signedInClient(server, { isAdmin: true });
  const person = await signedInClient(server);
  return { server, admin: admin.client, adminName: admin.user.username, person: person.client };
}

/** The newest audit entries, read through the admin API. */
export async function auditEntries(admin: TestClient, limit = 20): Promise<any[]> {
  const res = await admin.get(`/api/admin/audit?limit=${limit}`);
  expect(res.status).toBe(200);
  return res.body.data.entries;
}

/** Asserts the error envelope: STATUS and CODE. */
export function expectError(res: { status: number; body: any }, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ success: false, error: { code } });
}

/** key → value of the live settings stored in the instance's database (what every node applies). */
export async function storedLiveSettings(app: App): Promise<Record<string, unknown>> {
  const rows = await app.db.selectFrom("live_settings").select(["key", "value"]).execute();
  return Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value)]));
}
