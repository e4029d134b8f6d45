// The newline-delimited JSON of watch events, encoded once and shared by
// every watcher that sends the same bytes. A live batch is encoded once for
// all the plain watchers it is handed to. A replay is cut into blocks of
// revisions aligned on multiples of the block size: every watcher of a range
// whose replay covers a whole block sends exactly the same events for it,
// so a hundred watchers resuming from about the same resourceVersion share
// the encoding of all but the few revisions at either end of their replay.
// Watchers with selectors share too: the hub hands every watcher that sees
// the same events of a batch, as the same types, one array (watch-hub.ts).
import type { WatchEvent } from './watch-hub.ts';

/** One event line of a watch stream (no newline). */
export function eventLine(type: string, json: string): string {
  return `{"type":"${type}","object":${json}}`;
}

/** Each encoding's HTTP/1.1 chunk frame (size line, data, CRLF): one buffer, of which the encoding is a slice. */
const frames = new WeakMap<Buffer, Buffer>();

/**
 * NDJSON text as bytes, in a buffer with room for its HTTP/1.1 chunk frame
 * around it. A socket that sends the frame and a budget that holds the
 * encoding then keep one copy alive, not two, and a WebSocket sends slices
 * of the same bytes.
 */
function toBytes(text: string): Buffer {
  const n = Buffer.byteLength(text);
  const head = `${n.toString(16)}\r\n`;
  const framed = Buffer.allocUnsafe(head.length + n + 2);
  framed.write(head, 0, 'latin1');
  framed.write(text, head.length, 'utf8');
  framed.write('\r\n', head.length + n, 'latin1');
  const data = framed.subarray(head.length, head.length + n);
  frames.set(data, framed);
  return data;
}

/** `data` as one HTTP/1.1 chunk, the same buffer for every watcher that sends it (made here for encodings from elsewhere). */
export function httpFramed(data: Buffer): Buffer {
  let framed = frames.get(data);
  if (!framed) {
    framed = Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`, 'latin1'), data, Buffer.from('\r\n', 'latin1')]);
    frames.set(data, framed);
  }
  return framed;
}

/** A rendering that gives every watcher with the same key the same text for the same object. */
export interface SharedRender {
  key: string;
  render: (json: string) => string;
}

/** Encodes `events[from..to)` as NDJSON (each line newline-terminated). */
function encode(events: readonly WatchEvent[], from: number, to: number, render?: (json: string) => string): Buffer {
  let text = '';
  for (let i = from; i < to; i++) text += eventLine(events[i].type, render ? render(events[i].json) : events[i].json) + '\n';
  return toBytes(text);
}

const batches = new WeakMap<readonly WatchEvent[], Buffer>();
const renderedBatches = new WeakMap<readonly WatchEvent[], Map<string, Buffer>>();

/**
 * The NDJSON of a whole batch, made once per batch array (and rendering)
 * however many watchers send it. It lives as long as the array: until the
 * last watcher that queued the batch has written it.
 */
export function encodedBatch(events: readonly WatchEvent[], rendered?: SharedRender): Buffer {
  if (rendered) {
    let byKey = renderedBatches.get(events);
    if (!byKey) renderedBatches.set(events, (byKey = new Map()));
    let chunk = byKey.get(rendered.key);
    if (!chunk) byKey.set(rendered.key, (chunk = encode(events, 0, events.length, rendered.render)));
    return chunk;
  }
  let chunk = batches.get(events);
  if (!chunk) {
    chunk = encode(events, 0, events.length);
    batches.set(events, chunk);
  }
  return chunk;
}

const lines = new WeakMap<WatchEvent, WeakRef<Buffer>>();

/**
 * One event's NDJSON line, shared by every watcher that sends this very
 * event object (the change log's events are handed to every watcher that
 * sees them as their own type). Held weakly: it lives while a socket still
 * has it queued, and is made again if needed after that.
 */
export function encodedEvent(ev: WatchEvent): Buffer {
  let line = lines.get(ev)?.deref();
  if (!line) {
    line = toBytes(eventLine(ev.type, ev.json) + '\n');
    lines.set(ev, new WeakRef(line));
  }
  return line;
}

/**
 * Revisions per replay block (at most this many events, about 120 KB of
 * Pods: one write per watcher per event-loop turn, so a hundred watchers
 * replaying together hold the loop for milliseconds, not seconds), and per
 * small block, used at the ends of a replay where a whole block is not covered.
 */
const BLOCK_REVS = 64;
const SMALL_BLOCK_REVS = 8;

/** A replay: this watcher's events of the revisions after `afterRev` up to `throughRev`, in order. */
export interface Replay {
  events: readonly WatchEvent[];
  afterRev: number;
  throughRev: number;
}

/** Recently encoded replay blocks, least recently used first, bounded in bytes. */
const blocks = new Map<string, Buffer>();
let blockBytes = 0;
const MAX_BLOCK_BYTES = 32 * 1024 * 1024;

function cachedBlock(key: string, make: () => Buffer): Buffer {
  let chunk = blocks.get(key);
  if (chunk) {
    // Re-insert: Map order is the eviction order.
    blocks.delete(key);
    blocks.set(key, chunk);
    return chunk;
  }
  chunk = make();
  blocks.set(key, chunk);
  blockBytes += chunk.length;
  for (const [k, old] of blocks) {
    if (blockBytes <= MAX_BLOCK_BYTES) break;
    blocks.delete(k);
    blockBytes -= old.length;
  }
  return chunk;
}

/**
 * The next write of a replay for a watcher of `rangeKey`: the events from
 * `from` to the end of the block (or small block) that `events[from]` falls
 * in, and their NDJSON, shared with every other watcher of the range whose
 * replay covers the same block.
 */
export function nextReplayBlock(rangeKey: string, replay: Replay, from: number): { to: number; chunk: Buffer } {
  const { events, afterRev, throughRev } = replay;
  const rev = events[from].rev;
  let size = BLOCK_REVS;
  let start = rev - (rev % size);
  // A block is the same for every watcher only when the replay covers all of its revisions.
  if (start <= afterRev || start + size - 1 > throughRev) {
    size = SMALL_BLOCK_REVS;
    start = rev - (rev % size);
  }
  let to = from + 1;
  while (to < events.length && events[to].rev < start + size) to++;
  if (start <= afterRev || start + size - 1 > throughRev) return { to, chunk: encode(events, from, to) };
  return { to, chunk: cachedBlock(`${rangeKey}\u0000${size}\u0000${start}`, () => encode(events, from, to)) };
}
