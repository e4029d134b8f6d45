import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { pino } from 'pino';
import { SpdySession } from '../../shared/streams/spdy/session.ts';
import type { PodManager } from '../pod-manager.ts';
import { parsePorts } from './port-forward-ws.ts';
import { runPortForward, streamHeaderError } from './port-forward.ts';

test("stream headers are checked as kubelet's httpStreamReceived checks them", () => {
  const cases: [string, string, string | undefined][] = [
    ['80', 'data', undefined],
    ['80', 'error', undefined],
    ['', 'data', '"port" header is required'],
    ['x', 'data', 'unable to parse "x" as a port: strconv.ParseUint: parsing "x": invalid syntax'],
    ['0', 'data', 'port "0" must be > 0'],
    ['80', '', '"streamType" header is required'],
    ['80', 'stdin', 'invalid stream type "stdin"'],
  ];
  for (const [port, type, want] of cases) assert.equal(streamHeaderError(port, type), want, `${port}/${type}`);
});

test('WebSocket port-forward ports come from repeated or comma-separated port parameters', () => {
  assert.deepEqual(parsePorts(new URLSearchParams('port=80&port=81,82')), [80, 81, 82]);
  assert.equal(parsePorts(new URLSearchParams('')), 'query parameter "port" is required');
  assert.equal(parsePorts(new URLSearchParams('port=0')), 'port "0" must be > 0');
});

test('SPDY port-forward: stream pairs reach the listener, a closed port answers on the error stream, streams interleave', async () => {
  const pods = {
    worker: () => ({
      pod: { metadata: { uid: 'u1' } },
      portListener: (port: number) => (port === 80 ? { http: () => ({ status: 200, body: 'hi' }) } : undefined),
    }),
  } as unknown as PodManager;
  const server = net.createServer((sock) =>
    runPortForward(pods, sock, Buffer.alloc(0), { namespace: 'd', pod: 'p' }, pino({ level: 'silent' })),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const sock = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  const session = new SpdySession(sock, { role: 'client' });
  sock.on('data', (b: Buffer) => session.receive(b));
  const pair = (port: number, id: string) => {
    const h = (t: string) => ({ streamtype: [t], port: [String(port)], requestid: [id] });
    const error = session.openStream(h('error'));
    error.end();
    const data = session.openStream(h('data'));
    const read = (s: typeof data) =>
      new Promise<string>((resolve) => {
        let t = '';
        s.on('data', (d: Buffer) => (t += d.toString()));
        s.on('end', () => resolve(t));
      });
    return { data, out: read(data), err: read(error) };
  };
  const a = pair(80, '0');
  const b = pair(81, '1');
  const c = pair(80, '2');
  a.data.end('GET / HTTP/1.0\r\n\r\n');
  c.data.end('GET / HTTP/1.1\r\nConnection: close\r\n\r\n');
  assert.match(await a.out, /^HTTP\/1\.1 200 OK[\s\S]*\r\n\r\nhi$/);
  assert.match(await c.out, /\r\n\r\nhi$/);
  assert.equal(await a.err, '');
  assert.match(await b.err, /^error forwarding port 81 to pod [0-9a-f]{64}, uid : failed to execute portforward in network namespace/);
  session.close();
  sock.destroy();
  await new Promise((r) => server.close(r));
});
