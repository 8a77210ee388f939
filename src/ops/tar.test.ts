import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mkdirSync, symlinkSync, linkSync } from "node:fs";
import { gunzipSync, gzipSync } from "node:zlib";
import { create as createTar } from "tar";
import { readTarGz, TarGzWriter } from "./tar";
import { readEntries } from "../testing/tar";

const dir = mkdtempSync(join(tmpdir(), "socialctl-tar-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("tar.gz writer and reader", () => {
  test("round trip: empty, block-sized, odd-sized and long-named entries, from memory and from disk", async () => {
    const big = Buffer.alloc(70_001);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7919) % 251;
    writeFileSync(join(dir, "big.bin"), big);
    const longName = `files/${"d".repeat(90)}/${"n".repeat(90)}.webp`;
    const archive = join(dir, "a.tar.gz");
    const w = new TarGzWriter(archive);
    await w.addBuffer("manifest.json", Buffer.from('{"a":1}'));
    await w.addBuffer("empty", Buffer.alloc(0));
    await w.addBuffer("block", Buffer.alloc(512, 1));
    await w.addFile(longName, join(dir, "big.bin"), big.length, Date.now());
    await w.finish();
    const entries = await readEntries(archive);
    expect(entries.map((e) => [e.path, e.data.length])).toEqual([["manifest.json", 7], ["empty", 0], ["block", 512], [longName, big.length]]);
    expect(entries[3]!.data.equals(big)).toBe(true);
    // the output is a plain ustar stream other tools read: magic and the long name's prefix field
    const tar = gunzipSync(readFileSync(archive));
    expect(tar.toString("ascii", 257, 262)).toBe("ustar");
    expect(tar.length % 512).toBe(0);
  });

  test("stopAfter reads only what is needed", async () => {
    const seen: string[] = [];
    await readTarGz(join(dir, "a.tar.gz"), (e) => {
        seen.push(e.path);
        return null;
      }, { stopAfter: (e) => e.path === "empty" });
    expect(seen).toEqual(["manifest.json", "empty"]);
  });

  test("truncated, corrupt-header and non-gzip input are errors", async () => {
    const tar = gunzipSync(readFileSync(join(dir, "a.tar.gz")));
    writeFileSync(join(dir, "short.tar.gz"), gzipSync(tar.subarray(0, 2048)));
    await expect(readEntries(join(dir, "short.tar.gz"))).rejects.toThrow("archive is truncated");
    const bad = Buffer.from(tar);
    bad[10] = bad[10]! ^ 0x20;
    writeFileSync(join(dir, "header.tar.gz"), gzipSync(bad));
    await expect(readEntries(join(dir, "header.tar.gz"))).rejects.toThrow("archive is corrupt (header checksum mismatch)");
    writeFileSync(join(dir, "plain.tar.gz"), "hello");
    await expect(readEntries(join(dir, "plain.tar.gz"))).rejects.toThrow("archive is corrupt");
    const w = new TarGzWriter(join(dir, "grown.tar.gz"));
    await expect(w.addFile("x", join(dir, "big.bin"), 10, Date.now())).rejects.toThrow("grew while it was archived");
    w.abort();
  });

  test("links and directories are refused, whatever they point at", async () => {
    const src = join(dir, "links");
    mkdirSync(join(src, "sub"), { recursive: true });
    writeFileSync(join(src, "real"), "x");
    symlinkSync("/etc/passwd", join(src, "sym"));
    linkSync(join(src, "real"), join(src, "hard"));
    const cases: Array<[string, string[], string]> = [
      ["symlink", ["real", "sym"], "archive holds an unsupported entry type for sym"],
      ["hardlink", ["real", "hard"], "archive holds an unsupported entry type for hard"],
      ["directory", ["sub"], "archive holds an unsupported entry type for sub/"],
    ];
    for (const [name, paths, message] of cases) {
      const file = join(dir, `${name}.tar.gz`);
      await createTar({ gzip: true, file, cwd: src }, paths);
      await expect(readEntries(file)).rejects.toThrow(message);
    }
  });
});
