import type { ExpressionBuilder } from "kysely";
import type { Cursor } from "../../lib/paging";

/**
 * The keyset condition for lists ordered by (TIME desc, ID desc): rows strictly after the
 * cursor's row, so concurrent inserts never repeat or skip rows.
 */
export const olderThan =
  (c: Cursor, time: string, id: string) =>
  (eb: ExpressionBuilder<any, any>) =>
    eb.or([eb(time, "<", c.t), eb.and([eb(time, "=", c.t), eb(id, "<", c.id)])]);
