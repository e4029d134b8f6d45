import { test } from 'node:test';
import assert from 'node:assert/strict';
import { invalidImageMessage, parseImageRef } from './reference.ts';

test('references normalize as containerd pulls them', () => {
  const cases: [string, string][] = [
    ['nginx', 'docker.io/library/nginx:latest'],
    ['nginx:1.14.2', 'docker.io/library/nginx:1.14.2'],
    ['hashicorp/http-echo', 'docker.io/hashicorp/http-echo:latest'],
    ['registry.k8s.io/e2e-test-images/agnhost:2.40', 'registry.k8s.io/e2e-test-images/agnhost:2.40'],
    ['localhost:5000/app:v1', 'localhost:5000/app:v1'],
    ['index.docker.io/library/redis:7', 'docker.io/library/redis:7'],
    [`nginx@sha256:${'a'.repeat(64)}`, `docker.io/library/nginx@sha256:${'a'.repeat(64)}`],
  ];
  for (const [image, full] of cases) {
    const r = parseImageRef(image);
    assert.ok('ref' in r, image);
    assert.equal(r.ref.full, full, image);
  }
});

test('references kubelet refuses get distribution/reference errors', () => {
  const cases: [string, string][] = [
    ['nginx::1', 'invalid reference format'],
    ['nginx:', 'invalid reference format'],
    ['Nginx', 'invalid reference format: repository name (library/Nginx) must be lowercase'],
    ['docker.io/Library/nginx', 'invalid reference format: repository name (Library/nginx) must be lowercase'],
    ['a'.repeat(64), `invalid repository name (${'a'.repeat(64)}), cannot specify 64-byte hexadecimal strings`],
    ['nginx latest', 'invalid reference format'],
  ];
  for (const [image, error] of cases) assert.deepEqual(parseImageRef(image), { error }, image);
  assert.equal(
    invalidImageMessage('nginx::1', 'invalid reference format'),
    `Failed to apply default image tag "nginx::1": couldn't parse image reference "nginx::1": invalid reference format`,
  );
});
