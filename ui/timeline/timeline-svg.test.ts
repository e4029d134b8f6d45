// renderChangeTimeline is pure: lanes per writer, one mark per write in the
// window with its hover text, links from a write to its cause, and escaping.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Change, Writer } from '../../shared/api/history-types.ts';
import { laneOf } from './lanes.ts';
import {
  appendToTimeline,
  assembleTimeline,
  describeChange,
  drawChangeTimeline,
  drawTimelineParts,
  renderChangeTimeline,
} from './timeline-svg.ts';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

function change(revision: string, ms: number, writer: Writer | undefined, name = 'web', type: Change['type'] = 'MODIFIED'): Change {
  return {
    revision,
    type,
    time: at(ms),
    writer,
    object: { group: 'apps', resource: 'deployments', kind: 'Deployment', namespace: 'default', name },
  };
}
const kcm = (controller: string, triggers?: string[]): Writer => ({
  user: 'system:kube-controller-manager',
  verb: 'create',
  cause: { controller, key: 'default/web', triggers },
});

const changes: Change[] = [
  change('10', 0, { user: 'admin', verb: 'create', userAgent: 'kubectl/v1.35' }, 'web', 'ADDED'),
  change('11', 1000, kcm('deployment', ['10'])),
  change('12', 2000, kcm('replicaset', ['11'])),
  change('13', 3000, {
    user: 'system:kube-scheduler',
    verb: 'create',
    subresource: 'binding',
    cause: { controller: 'scheduler', triggers: ['12'] },
  }),
  change('14', 4000, {
    user: 'system:node:node-1',
    verb: 'patch',
    subresource: 'status',
    cause: { controller: 'kubelet', triggers: ['13'] },
  }),
  change('15', 9000, undefined, 'gone', 'DELETED'),
];
const win = { from: T0, to: T0 + 10_000, width: 1000 };

const marks = (svg: string) =>
  [...svg.matchAll(/<(circle|rect) class="mark[^"]*" data-revision="(\d+)" data-lane="([^"]*)"/g)].map((m) => [m[2], m[3], m[1]]);

test('one lane per writer, the controller-manager split by controller', () => {
  const svg = renderChangeTimeline(changes, win);
  const lanes = [...svg.matchAll(/<text class="lane" data-lane="([^"]*)"/g)].map((m) => m[1]);
  assert.deepEqual(lanes, ['user admin', 'apiserver', 'controller deployment', 'controller replicaset', 'scheduler', 'kubelet node-1']);
  assert.equal(laneOf({ writer: { user: 'system:serviceaccount:kube-system:job-controller', verb: 'update' } }).label, 'controller job');
  const publisher = {
    user: 'system:serviceaccount:kube-system:root-ca-cert-publisher',
    verb: 'create',
    userAgent: 'kube-controller-manager/x',
  };
  assert.equal(laneOf({ writer: publisher }).label, 'controller root-ca-cert-publisher');
  assert.equal(laneOf({ writer: { user: 'system:kube-controller-manager', verb: 'update' } }).label, 'controller-manager');
  assert.equal(
    laneOf({ writer: { user: 'system:serviceaccount:default:app', verb: 'update' } }).label,
    'system:serviceaccount:default:app',
  );
});

test('each write is a mark in its lane, with what it was on hover', () => {
  const svg = renderChangeTimeline(changes, win);
  assert.deepEqual(marks(svg), [
    ['10', 'user admin', 'circle'],
    ['11', 'controller deployment', 'circle'],
    ['12', 'controller replicaset', 'circle'],
    ['13', 'scheduler', 'circle'],
    ['14', 'kubelet node-1', 'circle'],
    ['15', 'apiserver', 'rect'],
  ]);
  assert.ok(
    svg.includes('<title>2026-01-01T00:00:03.000Z create/binding Deployment default/web (revision 13, MODIFIED)\nby system:kube-scheduler'),
  );
  assert.ok(svg.includes('cause: replicaset reconciling default/web, triggered by revision 11'));
  // A change seen live says how long its commit took.
  const live = { ...changes[3], committed: '2026-01-01T00:00:03.042Z' };
  assert.match(
    describeChange(live),
    /^2026-01-01T00:00:03\.000Z create\/binding Deployment default\/web \(revision 13, MODIFIED\), committed 42 ms later\n/,
  );
  // x scales onto the plot: 200 px of labels, 788 px for 10 s; revision 11 is at 1 s.
  assert.match(svg, /data-revision="11"[^>]* cx="278.8"/);
});

test('a line joins a write to its cause when the cause is in view', () => {
  const svg = renderChangeTimeline(changes, win);
  const links = [...svg.matchAll(/<line class="link" data-from="(\d+)" data-to="(\d+)"/g)].map((m) => `${m[1]}->${m[2]}`);
  assert.deepEqual(links, ['10->11', '11->12', '12->13', '13->14']);
  const later = renderChangeTimeline(changes, { ...win, from: T0 + 1500 });
  assert.ok(!later.includes('data-from="10"') && !later.includes('data-from="11"'), 'causes out of view draw no line');
  assert.ok(later.includes('data-from="12" data-to="13"'));
});

test('only writes inside the window are drawn, and only their lanes', () => {
  const svg = renderChangeTimeline(changes, { ...win, from: T0 + 1500, to: T0 + 3500 });
  assert.deepEqual(
    marks(svg).map((m) => m[0]),
    ['12', '13'],
  );
  assert.ok(!svg.includes('data-lane="user admin"'));
  assert.match(renderChangeTimeline(changes, { ...win, from: T0 + 20_000, to: T0 + 30_000 }), /no writes in this window/);
});

test('names are escaped in marks, titles and lanes', () => {
  const evil = change('20', 500, { user: '<script>"x"&', verb: 'create', cause: { controller: "a'b<" } }, '<img onerror=1>');
  const svg = renderChangeTimeline([evil], win);
  assert.ok(!svg.includes('<script>') && !svg.includes('<img'));
  assert.ok(svg.includes('data-lane="user &lt;script&gt;&quot;x&quot;&amp;"'));
  assert.ok(svg.includes('data-name="&lt;img onerror=1&gt;"'));
  assert.ok(svg.includes('cause: a&#39;b&lt;'));
});

test("a page that keeps the changes draws marks without their object's attributes", () => {
  const lean = renderChangeTimeline(changes, { ...win, objectData: false, titles: false });
  assert.deepEqual(
    marks(lean).map(([revision]) => revision),
    marks(renderChangeTimeline(changes, win)).map(([revision]) => revision),
  );
  assert.ok(!/data-(name|namespace|kind|resource|group)=/.test(lean), lean);
  assert.ok(renderChangeTimeline(changes, win).includes('data-name="web"'));
});

test('the same input gives the same bytes; the selected mark is drawn as such', () => {
  assert.equal(renderChangeTimeline(changes, win), renderChangeTimeline(structuredClone(changes), win));
  assert.match(renderChangeTimeline(changes, { ...win, selected: '12' }), /class="mark selected" data-revision="12"/);
});

test('no element repeats an attribute (the SVG stands alone, as in a report)', () => {
  const svg = renderChangeTimeline(changes, { ...win, selected: '15' }) + renderChangeTimeline(changes, { ...win, selected: '11' });
  for (const tag of svg.match(/<[a-z]+ [^>]*>/g) ?? []) {
    const names = [...tag.matchAll(/ ([a-z-]+)="/g)].map((m) => m[1]);
    assert.equal(new Set(names).size, names.length, tag);
  }
});

test('writes of one lane a pixel apart share one mark that counts them; the selected one keeps its own', () => {
  const kubelet: Writer = { user: 'system:node:node-1', verb: 'patch', subresource: 'status' };
  const burst = Array.from({ length: 500 }, (_, i) => change(String(100 + i), 5000 + i / 100, kubelet, `p${i}`));
  const svg = renderChangeTimeline(burst, win);
  const drawn = marks(svg);
  assert.equal(drawn.length, 1, 'one mark for the burst');
  assert.equal(drawn[0][0], '599', 'the newest');
  assert.match(svg, /data-count="500"/);
  assert.match(svg, /and 499 more writes of this lane here/);
  const selected = marks(renderChangeTimeline(burst, { ...win, selected: '300' }));
  assert.deepEqual(selected.map((m) => m[0]).sort(), ['300', '599']);
});

test('chaos faults get their own lane at the top: red when injected, green when recovered, a band while they last', () => {
  const chaos = (revision: string, ms: number, reason: string, eventName: string): Change => ({
    revision,
    type: 'ADDED',
    time: at(ms),
    writer: { user: 'kubernetes-admin', verb: 'create', cause: { controller: 'ksim-chaos', detail: `${reason}: partition node-1` } },
    object: { group: '', resource: 'events', kind: 'Event', name: eventName },
  });
  const all = [
    ...changes,
    chaos('20', 1000, 'ChaosInjected', 'node-1.17f3a2b4c5d6e7f8'),
    chaos('21', 3000, 'ChaosRecovered', 'node-1.17f3a2b4c5d6e7f9'),
    chaos('22', 4000, 'ChaosInjected', 'node-2.17f3a2b4c5d6e7fa'),
  ];
  assert.deepEqual(laneOf(all[all.length - 1]), { label: 'chaos', kind: 'chaos' });
  const svg = renderChangeTimeline(all, { from: T0, to: T0 + 5000, width: 1200 });
  // The first lane label is chaos.
  assert.match(svg, /^.*?<text class="lane" data-lane="chaos"/);
  assert.match(svg, /<circle class="mark" data-revision="20" data-lane="chaos"[^>]* fill="#dc2626"/);
  assert.match(svg, /<circle class="mark" data-revision="21" data-lane="chaos"[^>]* fill="#16a34a"/);
  const bands = [
    ...svg.matchAll(
      /<rect class="fault" data-revision="(\d+)" data-target="([^"]*)"( data-ongoing="true")? x="([\d.]+)"[^>]* width="([\d.]+)"/g,
    ),
  ];
  assert.deepEqual(
    bands.map((b) => [b[1], b[2], Boolean(b[3])]),
    [
      ['20', '/node-1', false],
      ['22', '/node-2', true],
    ],
  );
  // The recovered fault's band spans 1 s to 3 s: 2/5 of the plot (1200 - 200 labels - 12 right).
  assert.ok(Math.abs(Number(bands[0][5]) - (2 / 5) * 988) < 1, bands[0][5]);
});

test('appendToTimeline draws later writes onto a drawing, or says it must be drawn anew', () => {
  const win = { from: T0, to: T0 + 10_000, width: 1200 };
  const drawn = drawChangeTimeline(changes, win);
  assert.match(drawn.svg, /<g class="links">.*<\/g><g class="marks">.*<\/g><\/svg>$/s);
  const byRev = new Map(changes.map((c) => [c.revision, c]));
  const later = change('30', 6000, kcm('replicaset', ['11']));
  const grown = appendToTimeline([later], win, drawn.lanes, (r) => byRev.get(r));
  assert.ok(grown);
  assert.match(grown.marks, /^<circle class="mark" data-revision="30" data-lane="controller replicaset"/);
  assert.match(grown.links, /^<line class="link" data-from="11" data-to="30"/);
  // The same write drawn in full is at the same place.
  const cx = (svg: string) => svg.match(/data-revision="30"[^>]* cx="([\d.]+)" cy="([\d.]+)"/)?.slice(1);
  assert.deepEqual(cx(grown.marks), cx(drawChangeTimeline([...changes, later], win).svg));
  // Past the window's end, or in a lane not drawn: draw anew.
  assert.equal(
    appendToTimeline([change('31', 11_000, kcm('replicaset'))], win, drawn.lanes, () => undefined),
    undefined,
  );
  assert.equal(
    appendToTimeline([change('32', 7000, { user: 'carol', verb: 'patch' })], win, drawn.lanes, () => undefined),
    undefined,
  );
});

test('a timeline drawn in chunks, newest first, puts together the same drawing', () => {
  const win = { from: T0, to: T0 + 10_000, width: 1200 };
  const parts = drawTimelineParts(changes, win);
  const chunks = [...parts.chunks(2)];
  assert.equal(chunks.length, 3);
  // The newest writes come first: a page shows them before it fills in the past.
  assert.deepEqual(
    chunks.map((c) => marks(c.marks).map(([revision]) => revision)),
    [
      ['14', '15'],
      ['12', '13'],
      ['10', '11'],
    ],
  );
  // Each link is drawn once, in the chunk of the mark it ends at.
  assert.deepEqual(
    chunks.map((c) => [...c.links.matchAll(/data-from="(\d+)" data-to="(\d+)"/g)].map((m) => `${m[1]}->${m[2]}`)),
    [['13->14'], ['11->12', '12->13'], ['10->11']],
  );
  assert.equal(assembleTimeline(parts.frame, chunks.reverse()), drawChangeTimeline(changes, win).svg);
  assert.deepEqual(parts.lanes, drawChangeTimeline(changes, win).lanes);
});
