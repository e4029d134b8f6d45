import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IngressClass } from 'kubernetes-types/networking/v1.js';
import { findResource } from '../../shared/api/resources.ts';
import type { Store } from '../storage/store.ts';
import type { ObjectToStore } from '../storage/types.ts';
import { defaultIngressClass, isDefaultIngressClass } from './default-ingress-class.ts';
import { newestDefault } from './newest-default.ts';

const ingresses = findResource('networking.k8s.io', 'v1', 'ingresses')!;
const cls = (name: string, isDefault: boolean, created: string): IngressClass => ({
  metadata: { name, creationTimestamp: created, annotations: isDefault ? { 'ingressclass.kubernetes.io/is-default-class': 'true' } : {} },
  spec: { controller: 'k8s.io/ingress-nginx' },
});
type IngressLike = ObjectToStore & { spec?: { ingressClassName?: string | null } };
const ingress = (spec?: object, annotations?: Record<string, string>) =>
  ({ metadata: { name: 'web', annotations }, spec }) as unknown as IngressLike;

test('of several default IngressClasses the newest wins, then the first by name', () => {
  const classes = [
    cls('old', true, '2026-01-01T00:00:00Z'),
    cls('b-new', true, '2026-02-01T00:00:00Z'),
    cls('a-new', true, '2026-02-01T00:00:00Z'),
    cls('newest-but-not-default', false, '2026-03-01T00:00:00Z'),
  ];
  assert.equal(newestDefault(classes, isDefaultIngressClass)?.metadata?.name, 'a-new');
  assert.equal(newestDefault([cls('x', false, '2026-03-01T00:00:00Z')], isDefaultIngressClass), undefined);
});

test('DefaultIngressClass fills only a new Ingress that names no class', () => {
  const plugin = defaultIngressClass({} as Store, () => cls('nginx', true, '2026-01-01T00:00:00Z'));
  const bare = ingress({ rules: [] });
  assert.equal(plugin.admit!('CREATE', ingresses, bare), true);
  assert.equal(bare.spec?.ingressClassName, 'nginx');
  const noSpec = ingress();
  assert.equal(plugin.admit!('CREATE', ingresses, noSpec), true);
  assert.equal(noSpec.spec?.ingressClassName, 'nginx');
  // A class named, even "", and the old annotation are the user's choice.
  const empty = ingress({ ingressClassName: '' });
  assert.equal(plugin.admit!('CREATE', ingresses, empty), false);
  assert.equal(empty.spec?.ingressClassName, '');
  const annotated = ingress({}, { 'kubernetes.io/ingress.class': 'other' });
  assert.equal(plugin.admit!('CREATE', ingresses, annotated), false);
  assert.equal(annotated.spec?.ingressClassName, undefined);
  // Only creates of the main resource.
  const updated = ingress({});
  assert.equal(plugin.admit!('UPDATE', ingresses, updated), false);
  const status = ingress({});
  assert.equal(plugin.admit!('CREATE', ingresses, status, undefined, { subresource: 'status' } as never), false);
  assert.equal(status.spec?.ingressClassName, undefined);
});

test('without a default class nothing changes', () => {
  const plugin = defaultIngressClass({} as Store, () => undefined);
  const bare = ingress({});
  assert.equal(plugin.admit!('CREATE', ingresses, bare), false);
  assert.equal(bare.spec?.ingressClassName, undefined);
});
