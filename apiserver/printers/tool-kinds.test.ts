import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as p from './tool-kinds.ts';
import type { Printer } from './types.ts';

const now = new Date('2026-11-30T12:00:00Z');
const meta = { name: 'x', creationTimestamp: '2026-11-30T11:59:00Z' };

test("rows as kube's printers make them", () => {
  const cases: [string, Printer<any>, any, unknown[]][] = [
    [
      'ComponentStatus healthy',
      p.componentStatusPrinter,
      { metadata: meta, conditions: [{ type: 'Healthy', status: 'True', message: 'ok' }] },
      ['x', 'Healthy', 'ok', ''],
    ],
    ['ComponentStatus without condition', p.componentStatusPrinter, { metadata: meta }, ['x', 'Unknown', '', '']],
    [
      'FlowSchema without distinguisher or status',
      p.flowSchemaPrinter,
      { metadata: meta, spec: { priorityLevelConfiguration: { name: 'exempt' }, matchingPrecedence: 2 } },
      ['x', 'exempt', 2, '<none>', '60s', '?'],
    ],
    [
      'exempt level',
      p.priorityLevelConfigurationPrinter,
      { metadata: meta, spec: { type: 'Exempt', exempt: {} } },
      ['x', 'Exempt', '<none>', '<none>', '<none>', '<none>', '60s'],
    ],
    [
      'queuing level',
      p.priorityLevelConfigurationPrinter,
      {
        metadata: meta,
        spec: {
          type: 'Limited',
          limited: {
            nominalConcurrencyShares: 20,
            limitResponse: { type: 'Queue', queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } },
          },
        },
      },
      ['x', 'Limited', 20, 128, 6, 50, '60s'],
    ],
    ['CSIDriver bare', p.csiDriverPrinter, { metadata: meta, spec: {} }, ['x', true, false, false, '<unset>', false, '<none>', '60s']],
    [
      'IPAddress of a service',
      p.ipAddressPrinter,
      { metadata: meta, spec: { parentRef: { group: '', resource: 'services', namespace: 'default', name: 'kubernetes' } } },
      ['x', 'services/default/kubernetes'],
    ],
    ['IPAddress without parent', p.ipAddressPrinter, { metadata: meta, spec: {} }, ['x', '<none>']],
    [
      'CSIStorageCapacity without capacity',
      p.csiStorageCapacityPrinter,
      { metadata: meta, storageClassName: 'sc' },
      ['x', 'sc', '<unset>'],
    ],
    ['pending claim', p.resourceClaimPrinter, { metadata: meta }, ['x', 'pending', '60s']],
    [
      'allocated, reserved claim',
      p.resourceClaimPrinter,
      { metadata: meta, status: { allocation: {}, reservedFor: [{}] } },
      ['x', 'allocated,reserved', '60s'],
    ],
    [
      'local APIService',
      p.apiServicePrinter,
      { metadata: meta, status: { conditions: [{ type: 'Available', status: 'True', reason: 'Local' }] } },
      ['x', 'Local', 'True', '60s'],
    ],
    [
      'unavailable aggregated APIService',
      p.apiServicePrinter,
      {
        metadata: meta,
        spec: { service: { namespace: 'kube-system', name: 'metrics-server' } },
        status: { conditions: [{ type: 'Available', status: 'False', reason: 'MissingEndpoints' }] },
      },
      ['x', 'kube-system/metrics-server', 'False (MissingEndpoints)', '60s'],
    ],
    ['webhooks', p.webhookConfigurationPrinter, { metadata: meta, webhooks: [{}, {}] }, ['x', 2, '60s']],
  ];
  for (const [name, printer, obj, cells] of cases) {
    const row = printer.row(obj, { now });
    assert.deepEqual(row.cells, cells, name);
    assert.equal(printer.columns.length, cells.length, `${name}: one cell per column`);
  }
});
