import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { S3Client, type Subprocess } from "bun";
import type { ConfigKey } from "../config";

export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** objects as files on disk, where s3rver keeps them */
  directory: string;
  /** the files.s3.* settings of an instance using this bucket */
  settings: Partial<Record<ConfigKey, unknown>>;
  /** a client of the bucket, for tests looking at (or changing) what it holds behind the instance's back */
  client: S3Client;
  stop(): Promise<void>;
}

/** Reads the port the s3rver child prints first; its stderr if it exits instead. */
async function portOf(child: Subprocess<"pipe", "pipe", "pipe">): Promise<number> {
  let printed = "";
  const decoder = new TextDecoder();
  for await (const chunk of child.stdout) {
    printed += decoder.decode(chunk, { stream: true });
    if (printed.includes("\n")) return Number(printed.trim());
  }
  throw new Error(`s3rver did not start: ${await new Response(child.stderr).text()}`);
}

/**
 * A real S3-compatible server (s3rver: S3's REST API over a directory, signatures checked)
 * on a free loopback port, with one empty bucket; stop() shuts it down and removes its dir.
 * It runs in a Node child process (see s3rver-node.mjs for why not in this one).
 */
export async function startTestS3(bucket = "media"): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), "socialctl-s3-"));
  const child = Bun.spawn(
    ["node", "--openssl-legacy-provider", join(import.meta.dir, "s3rver-node.mjs"), directory, bucket],
    { stdin: "pipe", stdout: "pipe", stderr: "pipe" },
  );
  const port = await portOf(child).catch((err) => {
    rmSync(directory, { recursive: true, force: true });
    throw err;
  });
  const endpoint = `http://127.0.0.1:${port}`;
  let stopped = false;
  // s3rver's fixed credentials
  const credentials = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };
  return {
    endpoint,
    bucket,
    directory,
    settings: {
      "files.s3.endpoint": endpoint,
      "files.s3.bucket": bucket,
      "files.s3.region": "us-east-1",
      "files.s3.accessKeyId": credentials.accessKeyId,
      "files.s3.secretAccessKey": credentials.secretAccessKey,
    },
    client: new S3Client({ endpoint, bucket, region: "us-east-1", ...credentials }),
    async stop() {
      if (stopped) return;
      stopped = true;
      child.stdin.end();
      await child.exited;
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
