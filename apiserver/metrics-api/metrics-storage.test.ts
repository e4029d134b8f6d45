// Tables for metrics-server's arithmetic: which earlier point a scrape is
// compared with, and the CPU rate over the window between them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MetricsStorage, usageBetween } from './metrics-storage.ts';
import { decodeBatch, type MetricsBatch, type MetricsPoint } from './resource-metrics-text.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const pt = (cpuSeconds: number, atS: number, startS = 0, memoryBytes = 1000): MetricsPoint => ({
  cpuSeconds,
  memoryBytes,
  timestamp: T0 + atS * 1000,
  startTime: startS ? T0 + startS * 1000 : 0,
});
const batch = (containers: Record<string, MetricsPoint>, node?: MetricsPoint): MetricsBatch => ({
  node,
  pods: new Map([['default/p', new Map(Object.entries(containers))]]),
});

test('the CPU rate is the counter rise over the window', () => {
  const cases: [string, MetricsPoint, MetricsPoint, number | undefined][] = [
    ['one core for 10 s', pt(20, 20), pt(10, 10), 1],
    ['a quarter core', pt(12.5, 20), pt(10, 10), 0.25],
    ['idle', pt(10, 20), pt(10, 10), 0],
    ['a counter that went down is refused', pt(5, 20), pt(10, 10), undefined],
    ['an empty window is refused', pt(10, 10), pt(10, 10), undefined],
    ['an earlier start is refused', pt(20, 20, 1), pt(10, 10, 5), undefined],
  ];
  for (const [name, last, prev, want] of cases) assert.equal(usageBetween(last, prev)?.cpuCores, want, name);
});

test('pods have usage from their second scrape; a restart starts over; a young container uses its start', () => {
  const s = new MetricsStorage(15_000);
  // [scrape, expected cores of container c (undefined: no metrics)]
  const steps: [string, MetricsBatch, number | undefined][] = [
    ['first scrape of an old container: nothing yet', batch({ c: pt(100, 100, 1) }), undefined],
    ['second: the rise since the first', batch({ c: pt(115, 115, 1) }), 1],
    ['same point again: the earlier one is kept', batch({ c: pt(115, 115, 1) }), 1],
    ['restarted (start after the stored point): nothing', batch({ c: pt(1, 130, 125) }), undefined],
    ['then the rise since the restart point', batch({ c: pt(3, 134, 125) }), 0.5],
    ['a container 12 s old, first seen: its start is the earlier point', batch({ c: pt(6, 212, 200) }), 0.5],
    ['a container 5 s old: nothing', batch({ c: pt(5, 305, 300) }), undefined],
  ];
  for (const [name, b, want] of steps) {
    s.store(new Map([['n1', b]]));
    assert.equal(s.podUsage('default/p')?.containers[0]?.usage.cpuCores, want, name);
  }
});

test('a pod has metrics only when every container has two points', () => {
  const s = new MetricsStorage(15_000);
  s.store(new Map([['n1', batch({ a: pt(1, 100, 1) })]]));
  s.store(new Map([['n1', batch({ a: pt(2, 110, 1), b: pt(1, 110, 1) })]]));
  assert.equal(s.podUsage('default/p'), undefined);
  s.store(new Map([['n1', batch({ a: pt(3, 120, 1), b: pt(2, 120, 1) })]]));
  assert.deepEqual(
    s.podUsage('default/p')?.containers.map((c) => [c.name, c.usage.cpuCores]),
    [
      ['a', 0.1],
      ['b', 0.1],
    ],
  );
});

test('nodes: the rise between two scrapes; a node that stops answering is forgotten', () => {
  const s = new MetricsStorage(15_000);
  s.store(new Map([['n1', batch({}, pt(1000, 100))]]));
  assert.equal(s.nodeUsage('n1'), undefined);
  s.store(new Map([['n1', batch({}, pt(1030, 110, 0, 5e9))]]));
  assert.deepEqual(s.nodeUsage('n1'), { cpuCores: 3, memoryBytes: 5e9, timestamp: T0 + 110_000, windowMs: 10_000 });
  s.store(new Map());
  assert.equal(s.nodeUsage('n1'), undefined);
});

test("kubelet's resource metrics text decodes into points", () => {
  const text = [
    '# HELP container_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the container in core-seconds',
    '# TYPE container_cpu_usage_seconds_total counter',
    'container_cpu_usage_seconds_total{container="c",namespace="default",pod="p"} 12.5 1767225610000',
    'container_memory_working_set_bytes{container="c",namespace="default",pod="p"} 1.048576e+08 1767225610000',
    'container_start_time_seconds{container="c",namespace="default",pod="p"} 1.7672256e+09 1767225600000',
    'container_cpu_usage_seconds_total{container="half",namespace="default",pod="p"} 1 1767225610000',
    'node_cpu_usage_seconds_total 300.25 1767225610000',
    'node_memory_working_set_bytes 2e+09 1767225610000',
    'resource_scrape_error 0',
  ].join('\n');
  const b = decodeBatch(text, 0);
  assert.deepEqual(b.node, { cpuSeconds: 300.25, memoryBytes: 2e9, timestamp: 1767225610000, startTime: 0 });
  // "half" has no memory sample: metrics-server drops it.
  assert.deepEqual([...b.pods.get('default/p')!.keys()], ['c']);
  assert.deepEqual(b.pods.get('default/p')!.get('c'), {
    cpuSeconds: 12.5,
    memoryBytes: 104857600,
    timestamp: 1767225610000,
    startTime: 1767225600000,
  });
});
