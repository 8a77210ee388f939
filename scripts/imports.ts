/**
 * The import graph of src/ and cli/: cycles and imports that run up the layers.
 * `bun scripts/imports.ts` prints both; src/architecture.test.ts fails when either grows.
 * Type-only imports count: a type import from a higher layer still ties the lower file to it.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");

/**
 * Layers from the bottom up; a file may import its own layer and those below. The first
 * matching pattern wins, so specific files come before their folder.
 */
export const LAYERS: Array<[layer: number, prefixes: RegExp]> = [
  // what every layer shares: helpers, and the catalogs of the app's and the server's texts
  [0, /^src\/(lib|locales)\//],
  // the browser app (src/web) talks to the server over HTTP only; it shares the realtime event list
  // and the Client API's resource schemas (src/contract: the server documents its answers with them,
  // the web app derives its types from them)
  [
    1,
    /^src\/(web|contract)\/|^src\/(config|db)\/|^src\/cache\/(?!answers\.ts$|stamps\.ts$|chat-list-stamps\.ts$|stamped-answers\.ts$)|^src\/(domain\/\w+|media|jobs)\/table\.ts$|^src\/realtime\/(events|broker|resume-log)\.ts$/,
  ],
  [
    2,
    /^src\/(app|services)\.ts$|^src\/domain\/(hooks|events)\.ts$|^src\/cache\/((chat-list-)?stamps|stamped-answers)\.ts$/,
  ],
  // the cluster engines (pub/sub, counters, leases; Redis behind them) and the job queue serve the domain
  [3, /^src\/media\/(store|kinds|sniff|native|sharp|image|video|references|uploads)\.ts$|^src\/(cluster|jobs)\//],
  [4, /^src\/domain\//],
  // the keyed caches of whole answers: housekeeping reads their logs, and they answer JSON text
  [5, /^src\/(realtime|media|ops|http)\/|^src\/cache\/answers\.ts$/],
  [6, /^src\/(clientapi|botapi)\//],
  [7, /^src\/(wiring|main)\.ts$|^src\/testing\//],
  [8, /^(cli|scripts)\//],
];

export function layerOf(file: string): number {
  for (const [layer, pattern] of LAYERS) if (pattern.test(file)) return layer;
  throw new Error(`${file} is in no layer: add it to LAYERS in scripts/imports.ts`);
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const rel = `${dir}/${name}`;
    if (statSync(join(ROOT, rel)).isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith(".d.ts")) out.push(rel);
  }
  return out;
}

const IMPORT_RE =
  /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function resolveImport(from: string, spec: string, files: Set<string>): string | null {
  if (!spec.startsWith(".")) return null;
  const base = relative(ROOT, resolve(ROOT, dirname(from), spec));
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`]) {
    if (files.has(candidate)) return candidate;
  }
  return null;
}

/** file → files it imports (relative imports only; tests are left out, they sit above everything). */
export function importGraph(): Map<string, string[]> {
  const files = [...sourceFiles("src"), ...sourceFiles("cli")];
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), "utf8").replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, "");
    const deps = new Set<string>();
    for (const m of text.matchAll(IMPORT_RE)) {
      const target = resolveImport(file, m[1] ?? m[2]!, known);
      if (target && target !== file) deps.add(target);
    }
    graph.set(file, [...deps].sort());
  }
  return graph;
}

/** Strongly connected components with more than one file (Tarjan). */
export function importCycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

/** Imports from a file to one in a higher layer, as "from → to". */
export function upwardImports(graph: Map<string, string[]>): string[] {
  const out: string[] = [];
  for (const [from, deps] of graph) {
    for (const to of deps) if (layerOf(to) > layerOf(from)) out.push(`${from} → ${to}`);
  }
  return out.sort();
}

if (import.meta.main) {
  const graph = importGraph();
  const cycles = importCycles(graph);
  const up = upwardImports(graph);
  console.log(`${graph.size} files, ${cycles.length} import cycles, ${up.length} imports up the layers`);
  for (const c of cycles) console.log(`cycle (${c.length} files):\n  ${c.join("\n  ")}`);
  for (const u of up) console.log(`up: ${u}`);
}
