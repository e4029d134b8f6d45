import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Listener } from '../runtime/images/network.ts';
import { openSimConnection } from './sim-connection.ts';

const web: Listener = {
  http: (req) =>
    req.path === '/' ? { status: 200, body: `hello ${req.method} ${req.query.get('q') ?? ''}` } : { status: 404, body: 'nope' },
};

function run(l: Listener, chunks: (string | null)[]): { out: string; ended: boolean } {
  let out = '';
  let ended = false;
  const conn = openSimConnection(l, { write: (b) => (out += b.toString('latin1')), end: () => (ended = true) }, '127.0.0.1');
  for (const c of chunks)
    if (c === null) conn.end();
    else conn.write(Buffer.from(c, 'latin1'));
  return { out, ended };
}

const cases: [string, Listener, (string | null)[], RegExp[], boolean][] = [
  [
    'one request, keep-alive',
    web,
    ['GET /?q=1 HTTP/1.1\r\nHost: x\r\n\r\n'],
    [/^HTTP\/1\.1 200 OK\r\n/, /Content-Length: 11\r\n/, /\r\n\r\nhello GET 1$/],
    false,
  ],
  ['split across chunks', web, ['GET / HT', 'TP/1.1\r\nHo', 'st: x\r\n\r', '\n'], [/^HTTP\/1\.1 200 OK/], false],
  ['pipelined', web, ['GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /x HTTP/1.1\r\nHost: x\r\n\r\n'], [/200 OK[\s\S]*404 Not Found/], false],
  ['HTTP/1.0 closes after the answer', web, ['GET / HTTP/1.0\r\n\r\n'], [/Connection: close\r\n/], true],
  ['Connection: close', web, ['GET / HTTP/1.1\r\nConnection: close\r\n\r\n'], [/200 OK/], true],
  [
    'a body is read off the stream',
    web,
    ['POST / HTTP/1.1\r\nContent-Length: 4\r\n\r\nabcd', 'GET /x HTTP/1.1\r\n\r\n'],
    [/hello POST[\s\S]*404/],
    false,
  ],
  [
    'an HTML page is text/html',
    { http: () => ({ status: 200, body: '<!DOCTYPE html>\n<html></html>' }) },
    ['GET / HTTP/1.1\r\n\r\n'],
    [/Content-Type: text\/html\r\n/],
    false,
  ],
  ['HEAD has no body', web, ['HEAD / HTTP/1.1\r\n\r\n'], [/Content-Length: 11\r\n\r\n$/], false],
  ['garbage is a 400 and a close', web, ['\x16\x03\x01 not http\r\n\r\n'], [/^HTTP\/1\.1 400 Bad Request/], true],
  ['a bad Content-Length is a 400', web, ['GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n'], [/400 Bad Request/], true],
  ['chunked bodies are not read', web, ['POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n'], [/501 Not Implemented/], true],
  ['a head that never ends is cut off', web, ['GET / HTTP/1.1\r\nX: ' + 'a'.repeat(40000)], [/400 Bad Request/], true],
  ['the client closing ends the connection', web, ['GET / HTTP/1.1\r\n\r\n', null], [/200 OK/], true],
  ['raw TCP: each chunk answered', { tcp: (d) => `+${d.trim()}\r\n` }, ['PING\r\n', 'ECHO\r\n'], [/^\+PING\r\n\+ECHO\r\n$/], false],
  ['a port that speaks nothing', {}, ['GET / HTTP/1.1\r\n\r\n'], [/^$/], false],
];

test('a forwarded connection is read as the simulated server reads its socket', () => {
  for (const [name, l, chunks, want, ended] of cases) {
    const got = run(l, chunks);
    for (const re of want) assert.match(got.out, re, name);
    assert.equal(got.ended, ended, `${name}: ended`);
  }
});
