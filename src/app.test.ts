import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineService, type App } from "./app";
import { silentLogger } from "./lib/log";
import { fileStore, fileStoreService, type FileStore, type StoredFile } from "./media/store";
import { storeUpload } from "./media/uploads";
import { makeUser } from "./testing/fixtures";
import { pngOf } from "./testing/media";
import { openApp } from "./wiring";

const opened: Array<{ app: App; dir: string }> = [];
async function open(services?: Parameters<typeof openApp>[0]["services"]) {
  const dir = mkdtempSync(join(tmpdir(), "social-services-"));
  const app = await openApp({ dataDir: dir, log: silentLogger, services });
  opened.push({ app, dir });
  return app;
}
afterEach(async () => {
  for (const { app, dir } of opened.splice(0)) {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A file store in memory: what an S3-backed store would look like to the rest of the code. */
class MemoryFileStore implements FileStore {
  readonly engine = "local";
  readonly files = new Map<string, Uint8Array>();
  redirectUrl = () => null;
  problem = async () => null;
  async put(key: string, source: Blob | Uint8Array) {
    this.files.set(key, source instanceof Uint8Array ? source : new Uint8Array(await source.arrayBuffer()));
  }
  async moveIn(key: string, path: string) {
    this.files.set(key, new Uint8Array(await Bun.file(path).arrayBuffer()));
    rmSync(path, { force: true });
  }
  async get(key: string): Promise<StoredFile | null> {
    const bytes = this.files.get(key);
    if (!bytes) return null;
    const body = new Blob([bytes as Uint8Array<ArrayBuffer>]);
    return { size: bytes.length, mtimeMs: 0, body, send: (start?: number, end?: number) => body.slice(start, end) };
  }
  async delete(key: string) {
    this.files.delete(key);
  }
}

describe("per-App services", () => {
  test("each App builds its own instance, once", async () => {
    let built = 0;
    const counter = defineService("test:counter", () => ({ n: ++built }));
    const [a, b] = [await open(), await open()];
    expect(a.services.get(counter)).toBe(a.services.get(counter));
    expect(a.services.get(counter)).not.toBe(b.services.get(counter));
    expect(built).toBe(2);
    expect(fileStore(a)).not.toBe(fileStore(b));
  });

  test("a provided implementation replaces the default: uploads land in it", async () => {
    const memory = new MemoryFileStore();
    const app = await open((services) => services.provide(fileStoreService, memory));
    const user = await makeUser(app);
    const upload = await storeUpload(app, { ownerId: user.id, kind: "avatar", data: await pngOf(app, 64, 64) });
    expect(memory.files.has(upload.storage_key)).toBe(true);
    expect(await fileStore(app).get(upload.storage_key)).not.toBeNull();
  });

  test("an implementation can not be swapped once in use", async () => {
    const app = await open();
    fileStore(app);
    expect(() => app.services.provide(fileStoreService, new MemoryFileStore())).toThrow(
      "media:file-store is already in use",
    );
  });
});
