// Files the compiled binary embeds: `with { type: "file" }` gives a path to read with Bun.file,
// `with { type: "text" }` the file's text (src/http/reference.ts, src/botapi/reference.ts).
declare module "swagger-ui-dist/swagger-ui-bundle.js" {
  const path: string;
  export default path;
}
declare module "swagger-ui-dist/swagger-ui.css" {
  const path: string;
  export default path;
}
declare module "*.md" {
  const text: string;
  export default text;
}
