import { describe, expect, test } from "bun:test";
import { RedisClient, S3Client } from "bun";
import { freeLoopbackPort } from "../testing/ports";
import { isEngineUnreachable, isUniqueViolation } from "./errors";

/** What CALL throws (it must throw). */
async function thrownBy(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (err) {
    return err;
  }
  throw new Error("expected a failure");
}

describe("isEngineUnreachable", () => {
  // a loopback port nothing listens on: every client's connection is refused
  const closed = freeLoopbackPort();

  test("recognises each engine client's refused connection, as the client reports it", async () => {
    const pg = new Bun.SQL(`postgres://postgres@127.0.0.1:${closed}/none`, { max: 1, connectionTimeout: 5 });
    const redis = new RedisClient(`redis://127.0.0.1:${closed}`, { autoReconnect: false, enableOfflineQueue: false });
    const s3 = new S3Client({
      endpoint: `http://127.0.0.1:${closed}`,
      bucket: "none",
      region: "us-east-1",
      accessKeyId: "key",
      secretAccessKey: "secret",
    });
    try {
      const failures = [
        await thrownBy(() => pg`SELECT 1`),
        await thrownBy(() => redis.send("PING", [])),
        await thrownBy(() => s3.file("some-key").text()),
        await thrownBy(() => s3.write("some-key", "bytes")),
        await thrownBy(() => fetch(`http://127.0.0.1:${closed}/`)),
      ];
      for (const err of failures)
        expect({ err, unreachable: isEngineUnreachable(err) }).toMatchObject({ unreachable: true });
      // wrapped by a caller that kept the cause
      expect(isEngineUnreachable(new Error("query failed", { cause: failures[0] }))).toBe(true);
    } finally {
      await pg.close();
      redis.close();
    }
  });

  test("PostgreSQL's own refusals while it shuts down or starts count; a refused write does not", () => {
    const withState = (errno: string) => Object.assign(new Error("server said no"), { errno });
    expect(isEngineUnreachable(withState("57P01"))).toBe(true); // admin shutdown
    expect(isEngineUnreachable(withState("57P03"))).toBe(true); // starting up
    expect(isEngineUnreachable(withState("08006"))).toBe(true); // connection failure
    expect(isEngineUnreachable(withState("23505"))).toBe(false);
    expect(isUniqueViolation(withState("23505"))).toBe(true);
  });

  test("bugs stay bugs", () => {
    expect(isEngineUnreachable(new TypeError("undefined is not a function"))).toBe(false);
    expect(isEngineUnreachable(new Error("injected fault"))).toBe(false);
    expect(isEngineUnreachable(null)).toBe(false);
    expect(isEngineUnreachable("ECONNREFUSED")).toBe(false);
  });
});
