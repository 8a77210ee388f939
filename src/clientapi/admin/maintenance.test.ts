import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { storeUpload } from "../../media/uploads";
import { adminWorld, auditEntries, expectError } from "../../testing/admin";
import type { TestClient } from "../../testing/client";
import { pngOf } from "../../testing/media";
import type { TestServer } from "../../testing/server";

let server: TestServer;
let admin: TestClient;
let person: TestClient;

beforeAll(async () => {
  ({ server, admin, person } = await adminWorld());
});
afterAll(() => server.stop());

describe("admin maintenance: what the CLI does to backups and media, in the browser's API", () => {
  test("an administrator makes a backup, sees it listed and downloads it; each step is in the audit log", async () => {
    const made = await admin.post("/api/admin/maintenance/backups", {});
    expect(made.status).toBe(200);
    const backup = made.body.data.backup;
    expect(backup.kind).toBe("archive");
    expect(backup.name).toMatch(/^backup-.+\.tar\.gz$/);
    expect(backup.sizeBytes).toBeGreaterThan(0);
    expect(backup).not.toHaveProperty("path");

    const listed = await admin.get("/api/admin/maintenance/backups");
    expect(listed.body.data.backups.map((b: any) => b.name)).toContain(backup.name);
    expect(listed.body.data).toMatchObject({ running: null, keep: 7 });

    const res = await fetch(`${server.url}/api/admin/maintenance/backups/${backup.name}/download`, {
      headers: { cookie: admin.cookieHeader() },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${backup.name}"`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(bytes.length).toBe(backup.sizeBytes);
    expect(gunzipSync(bytes).length).toBeGreaterThan(bytes.length);

    const [download, create] = await auditEntries(admin, 2);
    expect(download).toMatchObject({ action: "backup.download", target: { id: backup.name } });
    expect(create).toMatchObject({ action: "backup.create", target: { id: backup.name } });
    expect(create.details).toMatchObject({ sizeBytes: backup.sizeBytes, withoutDerived: false });
  });

  test("one backup at a time: a second request while one runs is told so", async () => {
    const [a, b] = await Promise.all([
      admin.post("/api/admin/maintenance/backups", { withoutDerived: true }),
      admin.post("/api/admin/maintenance/backups", {}),
    ]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([200, 409]);
    expectError(a.status === 409 ? a : b, 409, "MAINTENANCE_RUNNING");
  });

  test("names outside the backups folder, unknown names and bad bodies are refused", async () => {
    const get = (name: string) =>
      fetch(`${server.url}/api/admin/maintenance/backups/${name}/download`, {
        headers: { cookie: admin.cookieHeader() },
      });
    for (const name of ["..%2Fsocial.db", "social.db", "backup-nope.tar.gz", "..%2F..%2Fbackup-x.tar.gz"]) {
      const res = await get(name);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("NOT_FOUND");
    }
    expectError(await admin.post("/api/admin/maintenance/backups", { withoutDerived: "yes" }), 422, "VALIDATION_ERROR");
  });

  test("an ordinary person can neither make, list nor download backups", async () => {
    expectError(await person.post("/api/admin/maintenance/backups", {}), 403, "FORBIDDEN");
    expectError(await person.get("/api/admin/maintenance/backups"), 403, "FORBIDDEN");
    expectError(await person.post("/api/admin/maintenance/media/rebuild-derived"), 403, "FORBIDDEN");
    const name = (await admin.get("/api/admin/maintenance/backups")).body.data.backups[0].name;
    const res = await fetch(`${server.url}/api/admin/maintenance/backups/${name}/download`, {
      headers: { cookie: person.cookieHeader() },
    });
    expect(res.status).toBe(403);
  });

  test("rebuilding thumbnails and posters makes a missing thumbnail again and reports it", async () => {
    const me = (await admin.get("/api/auth/me")).body.data.account;
    const owner = await server.app.db.selectFrom("users").select("id").where("cuid", "=", me.id).executeTakeFirst();
    const upload = await storeUpload(server.app, {
      ownerId: owner!.id,
      kind: "post",
      data: await pngOf(server.app, 64, 48),
      filename: "blue.png",
    });
    const thumbKey = upload.thumb_url!.split("/").at(-1)!;
    const thumbPath = join(server.dataDir, "files", thumbKey.slice(0, 2), thumbKey);
    rmSync(thumbPath);
    const res = await admin.post("/api/admin/maintenance/media/rebuild-derived");
    expect(res.status).toBe(200);
    expect(res.body.data.report).toMatchObject({ rebuilt: 1, failed: [] });
    expect(existsSync(thumbPath)).toBe(true);
    const [entry] = await auditEntries(admin, 1);
    expect(entry).toMatchObject({ action: "media.rebuild-derived", details: { rebuilt: 1, failed: 0 } });
  });
});
