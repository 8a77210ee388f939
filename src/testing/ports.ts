export { freeLoopbackPort } from "../lib/ports";
