import { readTarGz, TarGzWriter } from "../ops/tar";

/** Every entry of a small archive, in order (tests rewrite archives to tamper with them). */
export async function readEntries(path: string): Promise<Array<{ path: string; data: Buffer }>> {
  const out: Array<{ path: string; data: Buffer }> = [];
  await readTarGz(path, (entry) => {
    const chunks: Buffer[] = [];
    return {
      write: (c) => void chunks.push(Buffer.from(c)),
      end: () => void out.push({ path: entry.path, data: Buffer.concat(chunks) }),
    };
  });
  return out;
}

export async function writeEntries(path: string, entries: Array<{ path: string; data: Buffer }>): Promise<void> {
  const w = new TarGzWriter(path);
  for (const e of entries) await w.addBuffer(e.path, e.data);
  await w.finish();
}
