import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { instanceIdentity } from "../../domain/instance/identity";
import { ok } from "../../http/envelope";
import { doc } from "../docs";
import { Instance } from "../schemas";

/** /api/instance: what the instance says about itself to anyone, signed in or not (config instance.*). */
export function instanceRoutes(app: App) {
  return new Elysia({ name: "client-instance" }).get("/", () => ok({ instance: instanceIdentity(app) }), {
    detail: doc("The instance's name, description, rules, contact and sign-up mode (no session needed)", {
      data: t.Object({ instance: Instance }),
    }),
  });
}
