import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FrameReader, FrameWriter } from './frames.ts';
import { SpdySession, type SpdyStream } from './session.ts';

/** A client and a server session wired to each other, bytes delivered on the next tick. */
function pair(onStream: (s: SpdyStream) => void) {
  const wire = (to: () => SpdySession) => ({
    write: (b: Buffer) => setImmediate(() => to().receive(b)),
    end: () => setImmediate(() => to().transportClosed()),
    destroy: () => {},
  });
  // eslint-disable-next-line prefer-const
  let server: SpdySession;
  const client = new SpdySession(
    wire(() => server),
    { role: 'client' },
  );
  server = new SpdySession(
    wire(() => client),
    { role: 'server', onStream },
  );
  return { client, server };
}

test('a stream carries bytes both ways; end() is a half close each way', async () => {
  const got: string[] = [];
  const { client } = pair((s) => {
    assert.equal(s.header('streamtype'), 'data');
    s.on('data', (d: Buffer) => s.write(Buffer.from(d.toString().toUpperCase())));
    s.on('end', () => s.end());
  });
  const s = client.openStream({ streamtype: ['data'], port: ['80'] });
  await client.replied(s);
  s.on('data', (d: Buffer) => got.push(d.toString()));
  s.write('hello');
  s.end();
  await new Promise((r) => s.on('end', r));
  assert.deepEqual(got, ['HELLO']);
});

test('a refused stream is reset; the connection goes on', async () => {
  let n = 0;
  const { client } = pair((s) => {
    if (n++ === 0) throw new Error('no port header');
    s.end('ok');
  });
  const a = client.openStream({});
  await new Promise((r) => a.on('close', r));
  const b = client.openStream({ port: ['80'] });
  const text = await new Promise<string>((r) => b.on('data', (d: Buffer) => r(d.toString())));
  assert.equal(text, 'ok');
});

test('pings from the peer are echoed; garbage ends the connection with a GOAWAY, no throw', () => {
  const out: Buffer[] = [];
  let closed = false;
  let error = '';
  const s = new SpdySession(
    { write: (b: Buffer) => out.push(b), end: () => {}, destroy: () => {} },
    { role: 'server', onClose: () => (closed = true), onError: (e) => (error = e.message) },
  );
  s.receive(new FrameWriter().ping(1));
  assert.deepEqual(
    new FrameReader().push(Buffer.concat(out)).map((f) => f.type),
    ['ping'],
  );
  s.receive(Buffer.from([0x80, 2, 0, 6, 0, 0, 0, 4, 0, 0, 0, 1]));
  assert.equal(error, 'unsupported SPDY version 2');
  assert.equal(closed, true);
  assert.deepEqual(
    new FrameReader().push(Buffer.concat(out)).map((f) => f.type),
    ['ping', 'goaway'],
  );
  // Bytes after the end are ignored.
  s.receive(Buffer.from('more garbage'));
});

test('a SYN_STREAM with a stream id of the wrong parity is a protocol error', () => {
  let error = '';
  const s = new SpdySession(
    { write: () => {}, end: () => {}, destroy: () => {} },
    { role: 'server', onStream: () => {}, onError: (e) => (error = e.message) },
  );
  s.receive(new FrameWriter().synStream(2, {}));
  assert.equal(error, 'invalid stream id 2');
});
