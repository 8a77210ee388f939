import { clack } from "./clack";
import { emailProblem, passwordProblem, usernameProblem } from "../../src/domain/users/service";
import { parseConfigValue } from "../../src/config";

/** What `socialctl init` needs, asked on a TTY or given as flags. */
export interface InitAnswers {
  baseUrl?: string;
  port?: string;
  registration?: string;
  admin?: { email: string; username: string; password: string };
}

const cancelled = (v: unknown): v is symbol => clack().isCancel(v);

function check(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** What the questions propose: flags, or an existing instance's current values. */
export interface InitDefaults {
  baseUrl?: string;
  port?: string;
  registration?: string;
  /** the instance has an administrator already: making one is not proposed */
  hasAdmin?: boolean;
}

/** Interactive `socialctl init` on a TTY: base URL, port, registration, first admin. */
export async function promptInit(defaults: InitDefaults): Promise<InitAnswers> {
  const p = clack();
  p.intro("socialctl init");
  const port = await p.text({
    message: "Port to listen on",
    initialValue: defaults.port ?? "3000",
    validate: (v) => check(() => parseConfigValue("port", v ?? "")),
  });
  if (cancelled(port)) process.exit(1);
  const baseUrl = await p.text({
    message: "Public base URL",
    initialValue: defaults.baseUrl ?? `http://127.0.0.1:${port}`,
    validate: (v) => check(() => parseConfigValue("baseUrl", v ?? "")),
  });
  if (cancelled(baseUrl)) process.exit(1);
  const registration = await p.select({
    message: "Who may register?",
    initialValue: defaults.registration ?? "captcha",
    options: [
      { value: "captcha", label: "Anyone, after a captcha" },
      { value: "open", label: "Anyone" },
      { value: "invite", label: "People with an invite code from an administrator" },
      { value: "closed", label: "Nobody (accounts are made with the CLI)" },
    ],
  });
  if (cancelled(registration)) process.exit(1);
  const wantAdmin = await p.confirm({
    message: defaults.hasAdmin ? "Create another admin account now?" : "Create an admin account now?",
    initialValue: !defaults.hasAdmin,
  });
  if (cancelled(wantAdmin)) process.exit(1);
  let admin: InitAnswers["admin"];
  if (wantAdmin) {
    const email = await p.text({ message: "Admin e-mail", validate: (v) => emailProblem(v ?? "") ?? undefined });
    if (cancelled(email)) process.exit(1);
    const username = await p.text({
      message: "Admin username",
      validate: (v) => usernameProblem(v ?? "") ?? undefined,
    });
    if (cancelled(username)) process.exit(1);
    const password = await p.password({
      message: "Admin password",
      validate: (v) => passwordProblem(v ?? "") ?? undefined,
    });
    if (cancelled(password)) process.exit(1);
    admin = { email, username, password };
  }
  p.outro("Writing the instance…");
  return { port, baseUrl, registration: registration as string, admin };
}
