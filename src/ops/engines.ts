import { RedisEngines } from "../cluster/redis";
import { ensureInstanceSecret, loadConfig } from "../config";
import { silentLogger } from "../lib/log";
import { S3FileStore } from "../media/s3-store";

/** The engines an instance's config chooses beside its database, and whether each answers now. */
export interface EngineReport {
  pubsub: { engine: "in-process" | "redis"; url: string | null; problem: string | null };
  files: { engine: "local" | "s3"; endpoint: string | null; bucket: string | null; problem: string | null };
}

/** A redis:// URL without its password, for output. */
export const redactUrl = (raw: string): string => {
  const u = new URL(raw);
  if (u.password) u.password = "***";
  return u.toString().replace(/\/$/, "");
};

/**
 * Asks the engines of DATADIR's config (Redis for pubsub.url, the bucket of files.s3.*) whether
 * they answer, with the same client code the server uses; read-only, for status and doctor.
 */
export async function probeEngines(dataDir: string): Promise<EngineReport> {
  const config = loadConfig(dataDir);
  const report: EngineReport = {
    pubsub: { engine: "in-process", url: null, problem: null },
    files: { engine: "local", endpoint: null, bucket: null, problem: null },
  };
  if (config["pubsub.url"]) {
    const redis = new RedisEngines(config["pubsub.url"], ensureInstanceSecret(dataDir), silentLogger);
    try {
      await redis.start();
      report.pubsub = { engine: "redis", url: redactUrl(config["pubsub.url"]), problem: await redis.problem() };
    } finally {
      redis.close();
    }
  }
  if (config["files.s3.bucket"]) {
    report.files = {
      engine: "s3",
      endpoint: config["files.s3.endpoint"] || null,
      bucket: config["files.s3.bucket"],
      problem: await new S3FileStore(config).problem(),
    };
  }
  return report;
}
