import { Elysia } from "elysia";
import type { App } from "../../app";
import { payInvoice } from "../../domain/payments/pay";
import { ok } from "../../http/envelope";
import { requestContext } from "../../http/context";

/**
 * The person's side of payments in stars:
 *   POST /social/messages/{cid}/{mid}/pay  → {status: "paid" | "declined" | "timeout", errorMessage?, balance?}
 * It answers once the bot answered its pre_checkout_query or the timeout passed.
 */
export function paymentRoutes(app: App) {
  return new Elysia({ name: "client-payments" })
    .use(requestContext(app))
    .post("/social/messages/:cid/:mid/pay", async ({ user, params }) => ok(await payInvoice(app, user, params.cid, params.mid)), { auth: true });
}
