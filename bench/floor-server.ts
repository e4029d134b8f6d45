// The floor for durable creates on this machine: a server that does only
// what any durable JSON-over-HTTP store must do, with the same HTTP stack,
// database and write layout as the apiserver (node:http; JSON.parse and
// JSON.stringify of the body; one synced LevelDB batch at a time holding
// the object and a small change-log record per create; the object sent back).
// No routing, validation, defaulting, watch fan-out or worker threads. The
// creates benchmark drives it with the same client in the same run: how far
// ksim is from it is the cost of being an apiserver. With a TLS directory
// (ca.crt, server.crt, server.key) it serves HTTPS as the apiserver does:
// the same node:https server, asking for a client certificate and verifying
// it against the CA, but doing nothing with it.
// Run as `node --import tsx bench/floor-server.ts <dir> [<tls-dir>]`; prints its port.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Level } from 'level';

interface Waiting {
  key: string;
  rev: number;
  json: string;
  res: http.ServerResponse;
}

async function main(dir: string, tlsDir: string | undefined): Promise<void> {
  const db = new Level<string, string>(dir, { keyEncoding: 'utf8', valueEncoding: 'utf8', writeBufferSize: 16 * 1024 * 1024 });
  await db.open();
  let rev = 0;
  let queue: Waiting[] = [];
  let writing = false;

  const flush = async (): Promise<void> => {
    if (writing || queue.length === 0) return;
    writing = true;
    const batch = queue;
    queue = [];
    const write = db.batch();
    for (const w of batch) {
      write.put(`o${w.key}`, `${w.rev}\n${w.json}`);
      write.put(`l${String(w.rev).padStart(16, '0')}`, `a\n0\n${w.key}\n`);
    }
    write.put('m/rev', String(rev));
    await write.write({ sync: true });
    for (const w of batch) {
      w.res.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(w.json) });
      w.res.end(w.json);
    }
    writing = false;
    void flush();
  };

  const listener = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      // The benchmark sends objects only; their metadata is all this server reads or writes.
      let obj: { metadata?: { name?: string; resourceVersion?: string; creationTimestamp?: string } };
      try {
        obj = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof obj;
      } catch {
        res.writeHead(400).end();
        return;
      }
      const meta = (obj.metadata ??= {});
      meta.resourceVersion = String(++rev);
      meta.creationTimestamp = new Date().toISOString();
      queue.push({ key: `${req.url}/${meta.name}`, rev, json: JSON.stringify(obj), res });
      if (!writing) setImmediate(() => void flush());
    });
  };
  const server = tlsDir
    ? https.createServer(
        {
          cert: readFileSync(join(tlsDir, 'server.crt')),
          key: readFileSync(join(tlsDir, 'server.key')),
          ca: readFileSync(join(tlsDir, 'ca.crt')),
          requestCert: true,
          rejectUnauthorized: false,
        },
        listener,
      )
    : http.createServer(listener);
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => console.log((server.address() as AddressInfo).port));
  process.on('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => void db.close().then(() => process.exit(0)));
  });
}

await main(process.argv[2], process.argv[3]);
