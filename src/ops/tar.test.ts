import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mkdirSync, symlinkSync, linkSync } from "node:fs";
import { gunzipSync, gzipSync } from "node:zlib";
import { Header } from "tar";
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
    expect(entries.map((e) => [e.path, e.data.length])).toEqual([
      ["manifest.json", 7],
      ["empty", 0],
      ["block", 512],
      [longName, big.length],
    ]);
    expect(entries[3]!.data.equals(big)).toBe(true);
    // the output is a plain ustar stream other tools read: magic and the long name's prefix field
    const tar = gunzipSync(readFileSync(archive));
    expect(tar.toString("ascii", 257, 262)).toBe("ustar");
    expect(tar.length % 512).toBe(0);
  });

  test("stopAfter reads only what is needed", async () => {
    const seen: string[] = [];
    await readTarGz(
      join(dir, "a.tar.gz"),
      (e) => {
        seen.push(e.path);
        return null;
      },
      { stopAfter: (e) => e.path === "empty" },
    );
    expect(seen).toEqual(["manifest.json", "empty"]);
  });

  test("truncated, corrupt-header and non-gzip input are errors", async () => {
    const tar = gunzipSync(readFileSync(join(dir, "a.tar.gz")));
    writeFileSync(join(dir, "short.tar.gz"), gzipSync(tar.subarray(0, 2048)));
    await expect(readEntries(join(dir, "short.tar.gz"))).rejects.toThrow("archive is truncated");
    const bad = Buffer.from(tar);
    bad[10] = bad[10]! ^ 0x20;
    writeFileSync(join(dir, "header.tar.gz"), gzipSync(bad));
    await expect(readEntries(join(dir, "header.tar.gz"))).rejects.toThrow(
      "archive is corrupt (header checksum mismatch)",
    );
    writeFileSync(join(dir, "plain.tar.gz"), "hello");
    await expect(readEntries(join(dir, "plain.tar.gz"))).rejects.toThrow("archive is corrupt");
    const w = new TarGzWriter(join(dir, "grown.tar.gz"));
    await expect(w.addFile("x", join(dir, "big.bin"), 10, Date.now())).rejects.toThrow("grew while it was archived");
    w.abort();
  });

  test("links, directories and devices are refused, whatever they point at", async () => {
    // archives made header by header, as a hostile one would be
    const block = (h: ConstructorParameters<typeof Header>[0]) => {
      const header = new Header(h);
      header.encode();
      return header.block!;
    };
    const base = { mode: 0o644, mtime: new Date(), size: 0 };
    const real = Buffer.concat([
      block({ ...base, path: "real", type: "File", size: 1 }),
      Buffer.from("x"),
      Buffer.alloc(511),
    ]);
    const cases: Array<[string, Buffer]> = [
      ["sym", block({ ...base, path: "sym", type: "SymbolicLink", linkpath: "/etc/passwd" })],
      ["hard", block({ ...base, path: "hard", type: "Link", linkpath: "real" })],
      ["sub/", block({ ...base, path: "sub/", type: "Directory" })],
      ["tty", block({ ...base, path: "tty", type: "CharacterDevice" })],
    ];
    for (const [name, entry] of cases) {
      const file = join(dir, `refused-${name.replace("/", "")}.tar.gz`);
      writeFileSync(file, gzipSync(Buffer.concat([real, entry, Buffer.alloc(1024)])));
      await expect(readEntries(file)).rejects.toThrow(`archive holds an unsupported entry type for ${name}`);
    }
  });
});
