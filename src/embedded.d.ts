// Files the compiled binary embeds: `with { type: "file" }` gives a path to read with Bun.file,
// `with { type: "text" }` the file's text (src/botapi/reference.ts).
declare module "*.md" {
  const text: string;
  export default text;
}
