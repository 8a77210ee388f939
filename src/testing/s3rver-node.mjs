// s3rver for the tests, run by Node with OpenSSL's legacy provider: s3rver encrypts a listing's
// continuation token with DES, which Bun's crypto (BoringSSL) does not have, so in process a
// listing of more than one page fails. Prints the port, then serves until stdin closes (the
// test process ended or stopped it).
import S3rver from "s3rver";

const [directory, bucket] = process.argv.slice(2);
const server = new S3rver({
  port: 0,
  address: "127.0.0.1",
  silent: true,
  directory,
  configureBuckets: [{ name: bucket, configs: [] }],
});
const { port } = await server.run();
process.stdout.write(`${port}\n`);
process.stdin.on("end", () => server.close().finally(() => process.exit(0)));
process.stdin.resume();
