import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeKubeProtobuf } from '../../shared/api/protobuf/index.ts';
import { StatusError } from '../../shared/api/errors.ts';
import { readDeleteOptions } from './delete-options.ts';

const q = (s = '') => new URLSearchParams(s);
const PB = 'application/vnd.kubernetes.protobuf';

function rejects(fn: () => unknown, code: number, message: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof StatusError, String(err));
    assert.equal(err.code, code);
    assert.equal(err.message, message);
    return true;
  });
}

test('a protobuf DeleteOptions body, as helm 4 sends it, is decoded in any group version', () => {
  for (const apiVersion of ['v1', 'apps/v1', 'batch/v1']) {
    const body = encodeKubeProtobuf({
      apiVersion,
      kind: 'DeleteOptions',
      propagationPolicy: 'Background',
      gracePeriodSeconds: 0,
      preconditions: { uid: 'u1' },
    });
    assert.deepEqual(readDeleteOptions(body, q(), PB), {
      propagationPolicy: 'Background',
      gracePeriodSeconds: 0,
      preconditions: { uid: 'u1' },
      dryRun: false,
    });
  }
  const dry = encodeKubeProtobuf({ apiVersion: 'v1', kind: 'DeleteOptions', dryRun: ['All'] });
  assert.equal(readDeleteOptions(dry, q(), `${PB}; charset=utf-8`).dryRun, true);
});

test('JSON and YAML bodies by their Content-Type; other types are 415', () => {
  assert.deepEqual(readDeleteOptions(Buffer.from('{"propagationPolicy":"Orphan"}'), q(), undefined), {
    propagationPolicy: 'Orphan',
    dryRun: false,
  });
  assert.deepEqual(readDeleteOptions(Buffer.from('gracePeriodSeconds: 5\n'), q(), 'application/yaml'), {
    gracePeriodSeconds: 5,
    dryRun: false,
  });
  rejects(
    () => readDeleteOptions(Buffer.from('x'), q(), 'text/plain'),
    415,
    'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
  );
});

test('with a body, the query parameters are not read; without one they are', () => {
  assert.deepEqual(readDeleteOptions(Buffer.from('{}'), q('gracePeriodSeconds=3&dryRun=All'), 'application/json'), { dryRun: false });
  assert.deepEqual(readDeleteOptions(Buffer.alloc(0), q('gracePeriodSeconds=3&dryRun=All&propagationPolicy=Foreground')), {
    gracePeriodSeconds: 3,
    propagationPolicy: 'Foreground',
    dryRun: true,
  });
});

test('malformed bodies are 400s with the decoder text, bad options are 422s as ValidateDeleteOptions words them', () => {
  rejects(
    () => readDeleteOptions(Buffer.from('{"gracePeriodSeconds":"x"}'), q(), 'application/json'),
    400,
    'DeleteOptions in version "v1" cannot be handled as a DeleteOptions: json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64',
  );
  assert.throws(
    () => readDeleteOptions(Buffer.from('k8s\0\x0a\xff'), q(), PB),
    (err: unknown) => err instanceof StatusError && err.code === 400,
  );
  rejects(
    () => readDeleteOptions(Buffer.from('{"propagationPolicy":"Sideways"}'), q(), 'application/json'),
    422,
    'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
  );
  rejects(
    () => readDeleteOptions(Buffer.from('{"propagationPolicy":"Orphan","orphanDependents":true}'), q(), 'application/json'),
    422,
    'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set',
  );
  rejects(
    () => readDeleteOptions(Buffer.alloc(0), q('dryRun=Some')),
    422,
    'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"',
  );
  rejects(
    () => readDeleteOptions(Buffer.from('{"kind":"Pod","apiVersion":"v1"}'), q(), 'application/json'),
    400,
    'decoded object cannot be converted to DeleteOptions',
  );
});
