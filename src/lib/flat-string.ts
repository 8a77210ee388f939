/**
 * S in one piece: a string built by `+` is a tree of its parts, and each answer that contains
 * it would walk and copy that tree again; searching it makes the engine join it once, in place.
 */
export function flat(s: string): string {
  s.indexOf("\u0000");
  return s;
}
