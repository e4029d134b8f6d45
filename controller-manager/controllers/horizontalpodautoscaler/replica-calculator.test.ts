import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { durationMs, podMetricsInfo, resourceReplicas, type CalculatorConfig, type PodMetrics } from './replica-calculator.ts';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const at = (msAgo: number) => new Date(NOW - msAgo).toISOString();
const cfg: CalculatorConfig = { tolerance: 0.1, cpuInitializationPeriodMs: 120_000, delayOfInitialReadinessStatusMs: 10_000 };

interface PodOpts {
  request?: string | null;
  phase?: string;
  ready?: boolean;
  /** When the Pod started and when its Ready condition last changed (ms ago). */
  started?: number;
  transition?: number;
}
const pod = (name: string, o: PodOpts = {}): Pod => ({
  metadata: { name, labels: { app: 'a' } },
  spec: { containers: [{ name: 'c', resources: o.request === null ? {} : { requests: { cpu: o.request ?? '1' } } }] },
  status: {
    phase: o.phase ?? 'Running',
    startTime: at(o.started ?? 600_000),
    conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True', lastTransitionTime: at(o.transition ?? 590_000) }],
  },
});
const metrics = (usage: Record<string, string>): PodMetrics[] =>
  Object.entries(usage).map(([name, cpu]) => ({
    metadata: { name },
    timestamp: at(5_000),
    window: '15s',
    containers: [{ name: 'c', usage: { cpu, memory: '10Mi' } }],
  }));

const calc = (current: number, target: number, pods: Pod[], usage: Record<string, string>) =>
  resourceReplicas(current, target, 'cpu', pods, podMetricsInfo(metrics(usage), 'cpu'), NOW - 5_000, NOW, cfg);

// kube's replica_calculator_test cases, as facts.
const cases: {
  name: string;
  current: number;
  target: number;
  pods: Pod[];
  usage: Record<string, string>;
  replicas: number;
  utilization?: number;
}[] = [
  {
    name: 'scale up: 300m, 500m, 700m of 1 CPU at a 30% target',
    current: 3,
    target: 30,
    pods: [pod('a'), pod('b'), pod('c')],
    usage: { a: '300m', b: '500m', c: '700m' },
    replicas: 5,
    utilization: 50,
  },
  {
    name: 'scale down: 28% of a 50% target over 5 Pods',
    current: 5,
    target: 50,
    pods: ['a', 'b', 'c', 'd', 'e'].map((n) => pod(n)),
    usage: { a: '100m', b: '300m', c: '500m', d: '250m', e: '250m' },
    replicas: 3,
    utilization: 28,
  },
  {
    name: 'tolerance: 102% of a 100% target keeps the count',
    current: 3,
    target: 100,
    pods: [pod('a', { request: '900m' }), pod('b', { request: '1' }), pod('c', { request: '1100m' })],
    usage: { a: '1010m', b: '1030m', c: '1020m' },
    replicas: 3,
    utilization: 102,
  },
  {
    name: 'unready (never ready) Pod ignored, then counted at 0% on a scale-up',
    current: 3,
    target: 30,
    pods: [pod('a', { ready: false, transition: 595_000 }), pod('b'), pod('c')],
    usage: { a: '300m', b: '500m', c: '700m' },
    replicas: 4,
    utilization: 60,
  },
  {
    name: 'a Pod still in its CPU initialization period without a full window since ready is ignored',
    current: 3,
    target: 30,
    pods: [pod('a', { started: 30_000, transition: 10_000 }), pod('b'), pod('c')],
    usage: { a: '1', b: '500m', c: '700m' },
    replicas: 4,
    utilization: 60,
  },
  {
    name: 'pending Pods are ignored and, on a scale-down, not counted',
    current: 3,
    target: 50,
    pods: [pod('a', { phase: 'Pending' }), pod('b'), pod('c')],
    usage: { b: '100m', c: '100m' },
    replicas: 1,
    utilization: 10,
  },
  {
    name: 'missing metrics on a scale-up count as 0%',
    current: 4,
    target: 50,
    pods: ['a', 'b', 'c', 'd'].map((n) => pod(n)),
    usage: { a: '900m', b: '900m', c: '900m' },
    replicas: 6,
    utilization: 90,
  },
  {
    name: 'missing metrics on a scale-down count as 100%',
    current: 4,
    target: 50,
    pods: ['a', 'b', 'c', 'd'].map((n) => pod(n)),
    usage: { a: '100m', b: '100m', c: '100m' },
    replicas: 3,
    utilization: 10,
  },
  {
    name: 'missing metrics that would reverse the direction keep the count',
    current: 4,
    target: 50,
    pods: ['a', 'b', 'c', 'd'].map((n) => pod(n)),
    usage: { a: '600m', b: '600m', c: '600m' },
    replicas: 4,
    utilization: 60,
  },
  {
    name: 'deleted and failed Pods take no part',
    current: 3,
    target: 50,
    pods: [
      pod('a'),
      { ...pod('b'), status: { ...pod('b').status, phase: 'Failed' } },
      { ...pod('c'), metadata: { name: 'c', deletionTimestamp: at(1000) } },
    ],
    usage: { a: '1' },
    replicas: 2,
    utilization: 100,
  },
];

for (const c of cases)
  test(`replica calculation: ${c.name}`, () => {
    const r = calc(c.current, c.target, c.pods, c.usage);
    assert.equal(r.replicas, c.replicas);
    if (c.utilization !== undefined) assert.equal(r.utilization, c.utilization);
  });

test('replica calculation: raw utilization is the mean usage in milli-units', () => {
  assert.equal(calc(3, 30, [pod('a'), pod('b'), pod('c')], { a: '300m', b: '500m', c: '700m' }).rawUtilization, 500);
});

test("replica calculation: kube's errors", () => {
  assert.throws(() => calc(1, 50, [], {}), /^Error: no pods returned by selector while calculating replica count$/);
  assert.throws(() => calc(1, 50, [pod('a', { request: null })], { a: '100m' }), /^Error: missing request for cpu$/);
  assert.throws(() => calc(1, 50, [pod('a', { phase: 'Pending' })], { a: '100m' }), /did not receive metrics for any ready pods/);
  assert.throws(() => calc(1, 50, [pod('a', { request: '0' })], { a: '100m' }), /no metrics returned matched known pods/);
});

test('PodMetrics: a Pod with a container lacking the resource, or no containers, has no metric', () => {
  const items = metrics({ a: '250m' });
  items.push({ metadata: { name: 'b' }, timestamp: at(0), window: '15s', containers: [{ name: 'c', usage: { memory: '1Mi' } }] });
  items.push({ metadata: { name: 'c' }, timestamp: at(0), window: '15s', containers: [] });
  const info = podMetricsInfo(items, 'cpu');
  assert.deepEqual([...info.keys()], ['a']);
  assert.equal(info.get('a')!.value, 250);
  assert.equal(info.get('a')!.windowMs, 15_000);
  assert.equal(podMetricsInfo(metrics({ a: '1500000n' }), 'cpu').get('a')!.value, 2);
});

test('Go durations', () => {
  assert.equal(durationMs('15s'), 15_000);
  assert.equal(durationMs('1m30s'), 90_000);
  assert.equal(durationMs('750ms'), 750);
  assert.equal(durationMs(''), 0);
});
