import { describe, expect, test } from "bun:test";
import { renderReferencePage, type OpenApiDocument } from "./reference-page";

const doc: OpenApiDocument = {
  info: { title: "Example <API>", version: "1.0", description: "**Bold** intro" },
  tags: [{ name: "things" }],
  paths: {
    "/api/things/{id}": {
      patch: {
        operationId: "editThing",
        summary: "Edit a <thing>",
        tags: ["things"],
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        requestBody: {
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["name"],
                properties: {
                  name: { type: "string", minLength: 1, maxLength: 64, description: "shown <to people>" },
                  count: { anyOf: [{ type: "string", format: "integer" }, { type: "integer" }] },
                  note: { anyOf: [{ type: "string" }, { type: "null" }] },
                  owner: { $ref: "#/components/schemas/Owner" },
                },
              },
            },
          },
        },
        responses: { "200": { description: "OK" }, "404": { description: "NOT_FOUND" } },
      },
    },
  },
  components: { schemas: { Owner: { type: "object", properties: { id: { type: "string" } } } } },
};

describe("the reference page", () => {
  const html = renderReferencePage(doc, { stylesheet: "/s.css", script: "/s.js", documentUrl: "/doc.json" });

  test("text from the document is escaped; descriptions are Markdown", () => {
    expect(html).toContain("<title>Example &lt;API&gt;</title>");
    expect(html).toContain("Edit a &lt;thing&gt;");
    expect(html).toContain("shown &lt;to people&gt;");
    expect(html).not.toContain("<thing>");
    expect(html).toContain("<strong>Bold</strong> intro");
  });

  test("an operation is a <details> with a stable id, its fields with types and limits", () => {
    expect(html).toContain('<details class="operation" id="operations-things-editThing">');
    expect(html).toMatch(
      /<code class="field">name<\/code> <span class="type">string<\/span> <span class="notes">required, 1–64 characters<\/span>/,
    );
    // a number accepted as digits too is an integer; a nullable field says so
    expect(html).toMatch(/<code class="field">count<\/code> <span class="type">integer<\/span>/);
    expect(html).toMatch(/<code class="field">note<\/code> <span class="type">string, or null<\/span>/);
    expect(html).toContain('<a href="#schema-Owner">Owner</a>');
    expect(html).toContain('<section id="schema-Owner" class="schema">');
    expect(html).toContain("<strong>404</strong> NOT_FOUND");
    expect(html).toContain('<a href="/doc.json">OpenAPI document (JSON)</a>');
  });
});
