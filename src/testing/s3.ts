import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";
import type { ConfigKey } from "../config";

export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** objects as files on disk, where s3rver keeps them */
  directory: string;
  /** the files.s3.* settings of an instance using this bucket */
  settings: Partial<Record<ConfigKey, unknown>>;
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
  return {
    endpoint,
    bucket,
    directory,
    settings: {
      "files.s3.endpoint": endpoint,
      "files.s3.bucket": bucket,
      "files.s3.region": "us-east-1",
      // s3rver's fixed credentials
      "files.s3.accessKeyId": "S3RVER",
      "files.s3.secretAccessKey": "S3RVER",
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
