// renderTimelineSvg is pure: the same events give the same bytes, names are
// escaped, times scale onto the width, and each kind of event has its shape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeXml, formatDuration, renderTimelineSvg, tickStep } from './svg.ts';
import type { TimelineEvent } from './types.ts';

const events: TimelineEvent[] = [
  { at: 0, type: 'run-started', name: 'demo' },
  { at: 1000, type: 'fault-injected', name: 'kill scheduler', faultId: 'kill-1', message: 'killed scheduler (pid 1)' },
  { at: 1500, type: 'reaction', mode: 'Event', name: 'Killing', object: 'Pod default/a', warning: true },
  { at: 3000, type: 'fault-recovered', name: 'kill scheduler', faultId: 'kill-1' },
  { at: 4000, type: 'check-passed', name: 'pods-running', mode: 'EOT', timeToRecoveryMs: 1000 },
  { at: 4500, type: 'check-failed', name: 'other', mode: 'Step', message: 'false' },
  { at: 5000, type: 'invariant-violated', name: 'surge', object: 'Pod default/b', message: '4 > 3' },
];

test('the same events give the same SVG', () => {
  const a = renderTimelineSvg(events, { title: 't' });
  const b = renderTimelineSvg(structuredClone(events), { title: 't' });
  assert.equal(a, b);
  assert.match(a, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.match(a, /<\/svg>$/);
});

test('names, objects and messages are escaped', () => {
  const svg = renderTimelineSvg([{ at: 10, type: 'fault-injected', name: '<script>&"x\'', message: 'a<b' }]);
  assert.ok(!svg.includes('<script>'));
  assert.ok(svg.includes('&lt;script&gt;&amp;&quot;x&#39;'));
  assert.ok(svg.includes('a&lt;b'));
  assert.equal(escapeXml(`<>&"'`), '&lt;&gt;&amp;&quot;&#39;');
});

test('times scale onto the plot: a fault from 1 s to 3 s of 5 s spans 40% of it', () => {
  const svg = renderTimelineSvg(events, { width: 1000, labelWidth: 200, durationMs: 5000 });
  // plot: x 200..984 (16 px right margin), 784 px for 5 s.
  const bar = /<rect x="([\d.]+)" y="-7" width="([\d.]+)"/.exec(svg);
  assert.ok(bar, svg);
  assert.equal(Number(bar[1]), 200 + 784 * 0.2);
  assert.equal(Number(bar[2]), 784 * 0.4);
});

test('each kind of event has its mark, and a fault never recovered runs to the end', () => {
  const svg = renderTimelineSvg(events);
  assert.match(svg, /<circle [^>]*fill="#2e9e5b"/, 'a pass');
  assert.match(svg, /stroke-dasharray="4 2"/, 'a time to recovery');
  assert.ok(svg.includes('>1s</text>'), 'its length');
  assert.match(svg, /<path d="M[^"]* Z" fill="#d0343a"/, 'a violation');
  assert.ok(svg.includes('pods-running (EOT)') && svg.includes('surge (invariant)') && svg.includes('>Event<'));
  const open = renderTimelineSvg([{ at: 100, type: 'fault-injected', name: 'partition', faultId: 'p-1' }], { durationMs: 1000 });
  assert.ok(open.includes('(not recovered)'));
});

test('durations and axis steps', () => {
  assert.equal(formatDuration(850), '850ms');
  assert.equal(formatDuration(1500), '1.5s');
  assert.equal(formatDuration(2000), '2s');
  assert.equal(formatDuration(125_000), '2m05s');
  assert.equal(tickStep(5000), 500);
  assert.equal(tickStep(60_000), 10_000);
});
