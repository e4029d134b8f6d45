// Picks a TCP port that is free right now on 127.0.0.1, for a test server.
// Another process can still take it before the server binds; startApiserver
// retries with a new port when that happens. Within one process a port is
// never handed out twice, so two servers started by one test file cannot
// collide with each other.
import { createServer } from 'node:net';

const handedOut = new Set<number>();

function listenOnZero(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ port: 0, host: '127.0.0.1', exclusive: true }, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error('freePort: server has no TCP address'));
        return;
      }
      const { port } = address;
      server.close((err) => (err ? reject(err) : resolve(port)));
    });
  });
}

/** Resolves to a port that was free on 127.0.0.1 at the time of the call. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await listenOnZero();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('freePort: the kernel kept returning ports already handed out');
}
