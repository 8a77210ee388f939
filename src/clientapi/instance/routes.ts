import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { instanceIdentity } from "../../domain/instance/identity";
import { ok } from "../../http/envelope";
import { doc, Resource } from "../docs";

export const Instance = Resource({
  name: t.String(),
  description: t.String(),
  rules: t.Array(t.String(), { description: "registering means accepting these (register's acceptRules)" }),
  contact: t.String({ description: "how to reach the administrators: an e-mail address, a link, or empty" }),
  registration: t.String({ description: "who may register: open, captcha, invite or closed" }),
});

/** /api/instance: what the instance says about itself to anyone, signed in or not (config instance.*). */
export function instanceRoutes(app: App) {
  return new Elysia({ name: "client-instance" }).get("/", () => ok({ instance: instanceIdentity(app) }), {
    detail: doc("The instance's name, description, rules, contact and sign-up mode (no session needed)", {
      data: t.Object({ instance: Instance }),
    }),
  });
}
