import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { readFileSync, statSync } from "node:fs";
import { CLI, SOCIALCTL, CLI_PROCESS_BOUND_MS, cliHarness, runCli } from "../../src/testing/cli";

const harness = cliHarness();
const { tmp, run, runJson, expectOneLineFailure, cleanup } = harness;
afterAll(cleanup);
// each step spawns processes; a busy machine (parallel test runs) makes them slow
// each test starts the CLI many times, each start a second or more of CPU on a busy machine
setDefaultTimeout(120_000);

describe("socialctl config, migrate, serve", () => {
  test("init", async () => {
    expect((await runJson("init", "--yes", "--registration", "open")).json.created).toBe(true);
  });

  test("config get / set validate keys and values", async () => {
    expect((await runJson("config", "set", "limits.clientRps", "50")).json).toEqual({
      key: "limits.clientRps",
      value: 50,
    });
    const [one, plain, all] = await Promise.all([
      runJson("config", "get", "limits.clientRps"),
      run("config", "get", "registration"),
      runJson("config", "get"),
      expectOneLineFailure(run("config", "set", "no.such.key", "1"), /unknown config key "no.such.key"/),
      expectOneLineFailure(run("config", "get", "no.such.key"), /unknown config key/),
      expectOneLineFailure(run("config", "set", "port", "seventy"), /config key "port" must be an integer/),
      expectOneLineFailure(run("config", "set", "baseUrl", "ftp://x"), /must be an absolute http\(s\) URL/),
    ]);
    expect(one.json).toEqual({ key: "limits.clientRps", value: 50 });
    expect(plain.stdout.trim()).toBe("open");
    expect(all.json["limits.clientRps"]).toBe(50);
    expect((await runJson("config", "set", "auth.requireVerifiedEmail", "true")).json.value).toBe(true);
  });

  test("with --json, commander's usage errors, help and version are one JSON document too", async () => {
    const [missing, after, unknown, bare, version, help] = await Promise.all([
      runJson("user", "create", "--email", "x@example.test"),
      run("user", "create", "--email", "x@example.test", "--json"),
      runJson("no-such-command"),
      runJson("user"),
      runJson("--version"),
      runJson("user", "--help"),
    ]);
    expect(missing.code).toBe(1);
    expect(missing.json).toEqual({ error: { message: "required option '--username <u>' not specified" } });
    expect(missing.stderr.trim()).toBe("error: required option '--username <u>' not specified");
    // --json after the subcommand counts as well
    expect(after.code).toBe(1);
    expect(JSON.parse(after.stdout)).toEqual(missing.json);
    expect(unknown.code).toBe(1);
    expect(unknown.json).toEqual({ error: { message: "unknown command 'no-such-command'" } });
    // a command group without its subcommand is an error (help on stderr), not a success
    expect(bare.code).toBe(1);
    expect(bare.json).toEqual({ error: { message: "a subcommand is required (see --help)" } });
    expect(bare.stderr).toContain("Usage: socialctl user");
    expect(version.code).toBe(0);
    expect(version.json).toEqual({ version: expect.stringMatching(/^\d+\.\d+\.\d+$/) });
    expect(help.code).toBe(0);
    expect(help.json.help).toContain("Usage: socialctl user");
    // without --json the same error is one line on stderr and nothing on stdout
    const plain = await run("user", "create", "--email", "x@example.test");
    expect(plain.code).toBe(1);
    expect(plain.stdout).toBe("");
    expect(plain.stderr.trim()).toBe("error: required option '--username <u>' not specified");
  });

  test("config export / import carry the settings and the instance secret to another node's data dir", async () => {
    const { dataDir } = harness;
    await runJson("config", "set", "pubsub.url", "redis://10.0.0.5:6379/2");
    const stdout = await runJson("config", "export");
    expect(stdout.json).toMatchObject({ format: "socialctl-settings", version: 1 });
    expect(stdout.json.config["pubsub.url"]).toBe("redis://10.0.0.5:6379/2");
    const file = join(tmp(), "settings.json");
    expect((await runJson("config", "export", "--out", file)).json).toEqual({
      out: file,
      keys: Object.keys(stdout.json.config).length,
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const node2 = tmp();
    const imported = await runCli(["--data-dir", node2, "--json", "config", "import", file]);
    expect(imported.code).toBe(0);
    expect(imported.json).toMatchObject({ dataDir: node2, secretChanged: true });
    expect(readFileSync(join(node2, "secret"), "utf8")).toBe(readFileSync(join(dataDir, "secret"), "utf8"));
    expect(statSync(join(node2, "secret")).mode & 0o777).toBe(0o600);
    // the Web Push keys travel with the secret: browsers subscribed with the first node's public key
    expect(stdout.json.vapid).toEqual(JSON.parse(readFileSync(join(dataDir, "vapid.json"), "utf8")));
    expect(JSON.parse(readFileSync(join(node2, "vapid.json"), "utf8"))).toEqual(stdout.json.vapid);
    expect(statSync(join(node2, "vapid.json")).mode & 0o777).toBe(0o600);
    const got = await runCli(["--data-dir", node2, "config", "get", "pubsub.url"]);
    expect(got.stdout.trim()).toBe("redis://10.0.0.5:6379/2");

    // a data dir of another instance keeps its secret unless told otherwise
    const other = tmp();
    expect((await runCli(["--data-dir", other, "init", "--yes"])).code).toBe(0);
    await expectOneLineFailure(
      runCli(["--data-dir", other, "config", "import", file]),
      /already has another instance secret: pass --force/,
    );
    expect((await runCli(["--data-dir", other, "config", "import", file, "--force"])).code).toBe(0);
    expect(readFileSync(join(other, "secret"), "utf8")).toBe(readFileSync(join(dataDir, "secret"), "utf8"));
    // anything but an export is refused with a reason
    const junk = join(tmp(), "junk.json");
    await Bun.write(
      junk,
      JSON.stringify({ format: "socialctl-settings", version: 1, secret: "x".repeat(32), config: { port: "x" } }),
    );
    await expectOneLineFailure(
      runCli(["--data-dir", tmp(), "config", "import", junk]),
      /config key "port" must be an integer/,
    );
  });

  test("migrate reports nothing pending on a current database", async () => {
    const r = await runJson("migrate");
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ applied: [] });
  });

  test("commands other than init refuse an uninitialised dir", () => {
    const empty = tmp();
    const p = Bun.spawnSync([process.execPath, CLI, "--data-dir", empty, "user", "list"], { stdin: "ignore" });
    expect(p.exitCode).toBe(1);
    expect(p.stderr.toString().trim()).toBe(
      `socialctl: no instance in ${empty}: run 'npx socialctl --data-dir ${empty} init' first`,
    );
  });

  test("printed next steps name this CLI as run from source and the data dir, so they run as printed", async () => {
    const dir = tmp();
    const p = Bun.spawnSync([process.execPath, CLI, "--data-dir", dir, "init", "--yes"], {
      stdin: "ignore",
      env: { ...process.env, CI: "1" },
    });
    expect(p.stdout.toString()).toContain(`Next: npx socialctl --data-dir ${dir} serve;`);
  });

  test("serve on an empty dir initialises, answers /healthz and stops on SIGTERM", async () => {
    const empty = tmp();
    const proc = Bun.spawn([...SOCIALCTL, "--data-dir", empty, "serve", "--port", "0", "--host", "127.0.0.1"], {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const reader = proc.stderr.getReader();
    let err = "";
    let url: string | undefined;
    const deadline = Date.now() + CLI_PROCESS_BOUND_MS;
    while (!url && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      err += new TextDecoder().decode(value);
      url = err.match(/"msg":"listening".*?"url":"(http:\/\/[^"]+)"/)?.[1];
    }
    expect(url).toBeDefined();
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: "ok" });
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    expect(await Bun.file(join(empty, "social.db")).exists()).toBe(true);
  });
});
