import { marked } from "marked";

/*
 * An OpenAPI document as one HTML page, made on the server once: the areas (tags) as sections,
 * each operation a <details> with its parameters, body and answers, schemas as nested lists.
 * A page the browser only has to lay out, with no script to run (Swagger UI's bundle
 * had to run on a busy phone before it drew anything), readable without JavaScript and by
 * assistive technology, and printable.
 */

type Schema = {
  $ref?: string;
  type?: string | string[];
  format?: string;
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  additionalProperties?: boolean | Schema;
};

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  deprecated?: boolean;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; description?: string; content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
  security?: unknown[];
}

export interface OpenApiDocument {
  info: { title: string; version?: string; description?: string };
  tags?: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

const METHODS = ["get", "post", "put", "patch", "delete"] as const;
/** Nested objects deeper than this are summarised by their type; the shapes that matter are shallower. */
const MAX_DEPTH = 6;

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** A fragment id made of the characters HTML and CSS selectors take without escaping. */
const anchor = (...parts: string[]): string => parts.join("-").replace(/[^A-Za-z0-9_-]+/g, "_");

const markdown = (text: string | undefined): string => (text ? (marked.parse(text, { async: false }) as string) : "");

const refName = (ref: string): string => ref.slice(ref.lastIndexOf("/") + 1);

/** "integer" for the numeric-string-or-integer unions the schema builder makes, and the like. */
function typeLabel(s: Schema): string {
  if (s.$ref) return refName(s.$ref);
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return `one of ${s.enum.map((v) => JSON.stringify(v)).join(", ")}`;
  const union = s.anyOf ?? s.oneOf;
  if (union) {
    const labels = [...new Set(union.map(typeLabel))];
    const nullable = labels.includes("null");
    let rest = labels.filter((l) => l !== "null");
    // a query parameter's integer is also accepted as its digits
    if (rest.includes("integer") && rest.includes("string (integer)"))
      rest = rest.filter((l) => l !== "string (integer)");
    const label = rest.join(" or ") || "null";
    return nullable && rest.length ? `${label}, or null` : label;
  }
  if (s.allOf) return s.allOf.map(typeLabel).join(" and ");
  const type = Array.isArray(s.type) ? s.type.join(" or ") : s.type;
  if (type === "array") return `array of ${s.items ? typeLabel(s.items) : "anything"}`;
  if (type === "string" && s.format) return `string (${s.format})`;
  return type ?? "any";
}

function constraints(s: Schema): string[] {
  const out: string[] = [];
  if (s.minLength !== undefined && s.maxLength !== undefined) out.push(`${s.minLength}–${s.maxLength} characters`);
  else if (s.maxLength !== undefined) out.push(`at most ${s.maxLength} characters`);
  else if (s.minLength !== undefined) out.push(`at least ${s.minLength} characters`);
  if (s.minimum !== undefined) out.push(`≥ ${s.minimum}`);
  if (s.maximum !== undefined) out.push(`≤ ${s.maximum}`);
  if (s.minItems !== undefined) out.push(`at least ${s.minItems} items`);
  if (s.maxItems !== undefined) out.push(`at most ${s.maxItems} items`);
  if (s.pattern) out.push(`pattern ${s.pattern}`);
  if (s.default !== undefined && s.default !== 0) out.push(`default ${JSON.stringify(s.default)}`);
  return out;
}

/** The object a schema describes, if it has named fields (directly, inside an array, or as one side of a nullable). */
function fieldsOf(s: Schema): Schema | null {
  if (s.properties && Object.keys(s.properties).length) return s;
  if (s.items) return fieldsOf(s.items);
  const union = s.anyOf ?? s.oneOf;
  if (union) {
    const objects = union.map(fieldsOf).filter((x): x is Schema => x !== null);
    return objects.length === 1 ? objects[0]! : null;
  }
  return null;
}

function typeHtml(s: Schema): string {
  const label = escapeHtml(typeLabel(s));
  return s.$ref ? `<a href="#${anchor("schema", refName(s.$ref))}">${label}</a>` : label;
}

/** A schema's fields as a list: name, type, required, limits, description, and nested fields. */
function fieldsHtml(s: Schema, depth: number): string {
  const obj = fieldsOf(s);
  if (!obj || depth > MAX_DEPTH) return "";
  const required = new Set(obj.required ?? []);
  const items = Object.entries(obj.properties!).map(([name, field]) => {
    const notes = [required.has(name) ? "required" : "", ...constraints(field)].filter(Boolean);
    return `<li><code class="field">${escapeHtml(name)}</code> <span class="type">${typeHtml(field)}</span>${
      notes.length ? ` <span class="notes">${escapeHtml(notes.join(", "))}</span>` : ""
    }${field.description ? `<div class="doc">${escapeHtml(field.description)}</div>` : ""}${fieldsHtml(field, depth + 1)}</li>`;
  });
  return `<ul class="fields">${items.join("")}</ul>`;
}

function schemaBlock(s: Schema | undefined): string {
  if (!s) return "";
  const own = fieldsHtml(s, 0);
  return `<p class="schema-type">${typeHtml(s)}${constraints(s).length ? ` <span class="notes">${escapeHtml(constraints(s).join(", "))}</span>` : ""}</p>${own}`;
}

function parametersHtml(params: Parameter[]): string {
  if (!params.length) return "";
  const rows = params.map(
    (p) =>
      `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${escapeHtml(p.in)}</td><td>${p.schema ? typeHtml(p.schema) : ""}</td><td>${
        p.required ? "yes" : ""
      }</td><td>${escapeHtml([p.description ?? "", ...(p.schema ? constraints(p.schema) : [])].filter(Boolean).join("; "))}</td></tr>`,
  );
  return `<h4>Parameters</h4><table><thead><tr><th scope="col">name</th><th scope="col">in</th><th scope="col">type</th><th scope="col">required</th><th scope="col">about</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

function bodyHtml(body: Operation["requestBody"]): string {
  const content = body?.content;
  if (!content) return "";
  const types = Object.keys(content);
  // the forms carry the same fields as the JSON body: one schema, its content types named
  return `<h4>Body${body.required ? "" : " (optional)"}</h4><p class="content-types">${types
    .map((t) => `<code>${escapeHtml(t)}</code>`)
    .join(" ")}</p>${body.description ? markdown(body.description) : ""}${schemaBlock(content[types[0]!]?.schema)}`;
}

function responsesHtml(responses: Operation["responses"]): string {
  if (!responses) return "";
  const entries = Object.entries(responses);
  const items = entries.map(([status, r]) => {
    const schema = r.content ? Object.values(r.content)[0]?.schema : undefined;
    // an error's shape is the shared envelope: its codes say enough
    const shape = status.startsWith("2") ? schemaBlock(schema) : "";
    return `<li><strong>${escapeHtml(status)}</strong> ${escapeHtml(r.description ?? "")}${shape}</li>`;
  });
  return `<h4>Answers</h4><ul class="responses">${items.join("")}</ul>`;
}

function operationHtml(path: string, method: string, op: Operation, tag: string): string {
  const id = anchor("operations", tag, op.operationId ?? `${method}${path}`);
  return `<details class="operation" id="${id}"><summary><span class="method method-${method}">${method.toUpperCase()}</span> <code class="path">${escapeHtml(
    path,
  )}</code> <span class="summary">${escapeHtml(op.summary ?? "")}</span></summary><div class="operation-body">${markdown(
    op.description,
  )}${parametersHtml(op.parameters ?? [])}${bodyHtml(op.requestBody)}${responsesHtml(op.responses)}</div></details>`;
}

/** DOC as a complete HTML page, styled by STYLESHEET, opened at a #fragment by SCRIPT, linking to the document itself. */
export function renderReferencePage(
  doc: OpenApiDocument,
  opts: { stylesheet: string; script: string; documentUrl: string },
): string {
  const byTag = new Map<string, string[]>();
  for (const t of doc.tags ?? []) byTag.set(t.name, []);
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? "other";
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push(operationHtml(path, method, op, tag));
    }
  }
  const tagInfo = new Map((doc.tags ?? []).map((t) => [t.name, t.description]));
  const sections = [...byTag].filter(([, ops]) => ops.length);
  const toc = sections
    .map(
      ([tag, ops]) =>
        `<li><a href="#${anchor("tag", tag)}">${escapeHtml(tag)}</a> <span class="count">${ops.length}</span></li>`,
    )
    .join("");
  const body = sections
    .map(
      ([tag, ops]) =>
        `<section id="${anchor("tag", tag)}" aria-labelledby="${anchor("tag", tag, "title")}"><h2 id="${anchor("tag", tag, "title")}">${escapeHtml(tag)}</h2>${markdown(tagInfo.get(tag))}${ops.join("")}</section>`,
    )
    .join("");
  const schemas = Object.entries(doc.components?.schemas ?? {})
    .map(
      ([name, s]) =>
        `<section id="${anchor("schema", name)}" class="schema"><h3>${escapeHtml(name)}</h3>${s.description ? `<p>${escapeHtml(s.description)}</p>` : ""}${schemaBlock(s)}</section>`,
    )
    .join("");
  const title = `${doc.info.title}${doc.info.version ? ` ${doc.info.version}` : ""}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(doc.info.title)}</title>
<link rel="stylesheet" href="${opts.stylesheet}">
<script src="${opts.script}" defer></script>
</head>
<body>
<header><h1>${escapeHtml(title)}</h1><p><a href="${opts.documentUrl}">OpenAPI document (JSON)</a>, for code generators and API tools.</p>${markdown(doc.info.description)}</header>
<nav aria-label="Areas"><h2>Areas</h2><ul>${toc}</ul></nav>
<main id="reference">${body}${schemas ? `<section aria-labelledby="schemas-title"><h2 id="schemas-title">Shared schemas</h2>${schemas}</section>` : ""}</main>
</body>
</html>
`;
}

export const REFERENCE_STYLE = `:root { color-scheme: light dark; --text: #1c1e21; --muted: #5b6270; --bg: #fff; --surface: #f4f5f7; --border: #d8dbe0; --accent: #2457c5; }
@media (prefers-color-scheme: dark) { :root { --text: #e6e8eb; --muted: #a3a9b4; --bg: #15171b; --surface: #1f2228; --border: #363b44; --accent: #8ab0ff; } }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1100px; padding: 16px; font: 16px/1.5 system-ui, sans-serif; color: var(--text); background: var(--bg); }
a { color: var(--accent); }
code { font-family: ui-monospace, monospace; font-size: 0.9em; overflow-wrap: anywhere; }
pre { overflow-x: auto; background: var(--surface); padding: 8px; border-radius: 6px; }
nav ul { display: flex; flex-wrap: wrap; gap: 6px 14px; padding: 0; list-style: none; }
nav .count, .notes, .content-types { color: var(--muted); font-size: 0.9em; }
section > h2 { margin-top: 32px; border-bottom: 1px solid var(--border); padding-bottom: 4px; }
details.operation { border: 1px solid var(--border); border-radius: 8px; margin: 8px 0; background: var(--surface); }
details.operation > summary { cursor: pointer; padding: 10px 12px; display: flex; flex-wrap: wrap; gap: 6px 10px; align-items: baseline; }
details.operation[open] > summary { border-bottom: 1px solid var(--border); }
.operation-body { padding: 4px 14px 12px; background: var(--bg); border-radius: 0 0 8px 8px; }
.method { font: 700 0.8em ui-monospace, monospace; padding: 2px 6px; border-radius: 4px; color: #fff; background: #4a5568; min-width: 4.5em; text-align: center; }
.method-get { background: #1d6fd1; } .method-post { background: #16803c; } .method-patch, .method-put { background: #a15c00; } .method-delete { background: #b42318; }
.path { font-weight: 600; }
table { border-collapse: collapse; width: 100%; display: block; overflow-x: auto; }
th, td { text-align: left; vertical-align: top; padding: 4px 8px; border-bottom: 1px solid var(--border); }
ul.fields { list-style: none; padding-left: 14px; border-left: 2px solid var(--border); margin: 4px 0; }
ul.fields li { margin: 4px 0; }
.field { font-weight: 600; }
.type { color: var(--muted); }
.doc { color: var(--text); font-size: 0.95em; }
ul.responses { padding-left: 18px; }
`;

/** Opens the operation a link's #fragment names (a closed <details> hides its target). */
export const REFERENCE_SCRIPT = `function openTarget() {
  var id = decodeURIComponent(location.hash.slice(1));
  var el = id && document.getElementById(id);
  if (el && el.tagName === "DETAILS") { el.open = true; el.scrollIntoView(); }
}
window.addEventListener("hashchange", openTarget);
document.addEventListener("DOMContentLoaded", openTarget);
`;
