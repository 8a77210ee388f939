/** uploadFor now lives in src/testing/media.ts; re-exported for the test files that still import it from here. */
export { uploadFor } from "../../testing/media";
