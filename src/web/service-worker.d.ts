/** The service worker's source as text (imported `with { type: "text" }` by src/http/pwa.ts, which serves it). */
declare const source: string;
export default source;
