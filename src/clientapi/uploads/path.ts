/**
 * The one Client API route whose body is large: it streams it and applies its own limits. Its
 * own module, so the root's body guard (wiring.ts) knows it without loading the Client API.
 */
export const UPLOAD_PATH = "/api/account/upload";
