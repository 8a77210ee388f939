import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { S3Client } from "bun";
import S3rver from "s3rver";
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

/**
 * A real S3-compatible server (s3rver: S3's REST API over a directory, signatures checked)
 * on a free loopback port, with one empty bucket; stop() shuts it down and removes its dir.
 */
export async function startTestS3(bucket = "media"): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), "socialctl-s3-"));
  const server = new S3rver({
    port: 0,
    address: "127.0.0.1",
    silent: true,
    directory,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = await server.run();
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
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
