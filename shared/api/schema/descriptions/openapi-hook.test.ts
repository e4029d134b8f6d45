// The hook in apiserver/openapi/schemas.ts: definitions and their properties
// carry these descriptions in v2 (beside a $ref) and v3 (on the allOf
// wrapper of a $ref), and the v2 protobuf form keeps them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { typeFor } from '../index.ts';
import { definitionSchema, type Json } from '../../../../apiserver/openapi/schemas.ts';
import { encodeOpenapiV2 } from '../../../../apiserver/openapi/v2-proto.ts';
import { described, fieldDescription, typeDescription } from './index.ts';

const CORE = 'io.k8s.api.core.v1';
const def = (name: string, dialect: 'v2' | 'v3'): Json => definitionSchema(typeFor(name)!, dialect);
const props = (name: string, dialect: 'v2' | 'v3'): Record<string, Json> => def(name, dialect).properties as Record<string, Json>;

test('a $ref property carries its description: beside the $ref in v2, on the allOf wrapper in v3', () => {
  const text = fieldDescription(`${CORE}.Container`, 'livenessProbe');
  assert.ok(text);
  assert.deepEqual(props(`${CORE}.Container`, 'v2').livenessProbe, { description: text, $ref: `#/definitions/${CORE}.Probe` });
  assert.deepEqual(props(`${CORE}.Container`, 'v3').livenessProbe, {
    description: text,
    allOf: [{ $ref: `#/components/schemas/${CORE}.Probe` }],
  });
});

test('scalar, array and map properties keep their schema beside the description', () => {
  const v3 = props(`${CORE}.Probe`, 'v3');
  assert.deepEqual(v3.periodSeconds, { description: fieldDescription(`${CORE}.Probe`, 'periodSeconds'), type: 'integer', format: 'int32' });
  const v2 = props('io.k8s.api.apps.v1.DeploymentSpec', 'v2');
  assert.equal(v2.strategy.description, fieldDescription('io.k8s.api.apps.v1.DeploymentSpec', 'strategy'));
  assert.equal(v2.strategy['x-kubernetes-patch-strategy'], 'retainKeys');
  const labels = props('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'v3').labels;
  assert.match(labels.description as string, /selectors/i);
  assert.deepEqual(labels.additionalProperties, { default: '', type: 'string' });
});

test('definitions carry the type description; kinds keep their own', () => {
  assert.equal(def(`${CORE}.Probe`, 'v2').description, typeDescription(`${CORE}.Probe`));
  assert.equal(def(`${CORE}.Pod`, 'v3').description, typeFor(`${CORE}.Pod`)!.description);
  assert.match(def('io.k8s.apimachinery.pkg.util.intstr.IntOrString', 'v3').description as string, /number or a string/);
  assert.equal(props(`${CORE}.Pod`, 'v3').apiVersion.description, fieldDescription(`${CORE}.Pod`, 'apiVersion'));
});

test('a property with no description gets none', () => {
  // A type these tables do not know: its definition and properties are written as before.
  const lease = typeFor('io.k8s.api.coordination.v1.Lease')!;
  const unknown = definitionSchema({ ...lease, name: 'io.example.v1.Unknown', gvk: undefined, description: undefined }, 'v3');
  assert.equal('description' in unknown, false);
  assert.equal('description' in (unknown.properties as Record<string, Json>).spec, false);
  assert.deepEqual(described(undefined, { type: 'string' }), { type: 'string' });
});

test('the v2 protobuf document keeps property descriptions', () => {
  const text = fieldDescription(`${CORE}.Container`, 'readinessProbe')!;
  const bytes = Buffer.from(encodeOpenapiV2({ swagger: '2.0', definitions: { [`${CORE}.Container`]: def(`${CORE}.Container`, 'v2') } }));
  assert.ok(bytes.includes(Buffer.from(text, 'utf8')));
});
