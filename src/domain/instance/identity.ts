import type { App } from "../../app";
import { fieldError } from "../../lib/errors";

/** The instance as it presents itself (config instance.*, changed live by admins), and who may join. */
export function instanceIdentity(app: App) {
  return {
    name: app.config["instance.name"],
    description: app.config["instance.description"],
    rules: app.config["instance.rules"],
    contact: app.config["instance.contact"],
    registration: app.config.registration,
  };
}

/** Registering means accepting the instance's rules, when it has any: the form says so and the person ticks it. */
export function assertRulesAccepted(app: App, acceptRules: boolean | undefined): void {
  if (app.config["instance.rules"].length > 0 && acceptRules !== true)
    throw fieldError("acceptRules", "must be true: read the instance's rules (GET /api/instance) and accept them");
}
