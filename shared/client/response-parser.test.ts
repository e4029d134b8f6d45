// The HTTP/1.1 response parser of ksim's own clients, fed responses cut at
// every possible place.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResponseParser } from './response-parser.ts';

function parseAll(wire: Buffer, cutEvery: number): { status: number; body: string }[] {
  const out: { status: number; body: string }[] = [];
  let status = 0;
  let body: Buffer[] = [];
  const parser = new ResponseParser({
    onHead: (s) => {
      status = s;
      body = [];
    },
    onBody: (buf, start, end) => body.push(Buffer.from(buf.subarray(start, end))),
    onEnd: () => out.push({ status, body: Buffer.concat(body).toString() }),
  });
  for (let i = 0; i < wire.length; i += cutEvery) {
    // Each read arrives in its own buffer, as from a socket.
    const piece = Buffer.from(wire.subarray(i, Math.min(wire.length, i + cutEvery)));
    parser.feed(piece, 0, piece.length);
  }
  return out;
}

const chunked = (parts: string[]) => parts.map((p) => `${Buffer.byteLength(p).toString(16)}\r\n${p}\r\n`).join('') + '0\r\n\r\n';
const wire = Buffer.from(
  'HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 14\r\n\r\n{"a":"héllo"}' +
    'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n' +
    chunked(['{"type":"ADDED"}\n{"type":', '"MODIFIED"}\n']) +
    'HTTP/1.1 100 Continue\r\n\r\n' +
    'HTTP/1.1 204 No Content\r\n\r\n' +
    'HTTP/1.1 404 Not Found\r\ncontent-length: 2\r\n\r\n{}',
);

test('responses on one keep-alive connection, whatever the read boundaries', () => {
  const expected = [
    { status: 201, body: '{"a":"héllo"}' },
    { status: 200, body: '{"type":"ADDED"}\n{"type":"MODIFIED"}\n' },
    { status: 204, body: '' },
    { status: 404, body: '{}' },
  ];
  for (const cut of [1, 2, 3, 7, 16, 64, wire.length]) assert.deepEqual(parseAll(wire, cut), expected, `reads of ${cut} bytes`);
});

test('a body without length runs until the connection closes', () => {
  let body = '';
  let ended = false;
  const parser = new ResponseParser({
    onHead: () => {},
    onBody: (b, s, e) => (body += b.toString('utf8', s, e)),
    onEnd: () => (ended = true),
  });
  const bytes = Buffer.from('HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nall of it');
  parser.feed(bytes, 0, bytes.length);
  assert.equal(ended, false);
  assert.equal(parser.closed(), true);
  assert.equal(ended, true);
  assert.equal(body, 'all of it');
  assert.equal(parser.closeAfter, true);
});

test('HTTP/1.0 closes unless it asks for keep-alive; a bad status line or an endless head is an error', () => {
  const parser = new ResponseParser({ onHead: () => {}, onBody: () => {}, onEnd: () => {} });
  const feed = (text: string) => {
    const bytes = Buffer.from(text);
    parser.feed(bytes, 0, bytes.length);
  };
  feed('HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n');
  assert.equal(parser.closeAfter, true);
  feed('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n');
  assert.equal(parser.closeAfter, false);
  assert.throws(() => feed('SMTP ready\r\n\r\n'), /bad response status line/);
  const endless = new ResponseParser({ onHead: () => {}, onBody: () => {}, onEnd: () => {} });
  const junk = Buffer.from(`HTTP/1.1 200 OK\r\nX: ${'y'.repeat(70 * 1024)}`);
  assert.throws(() => endless.feed(junk, 0, junk.length), /too large/);
});
