import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ImageCatalog, loadCatalogFile } from './catalog.ts';
import { parseImageRef } from './reference.ts';

const lookup = (cat: ImageCatalog, image: string) => {
  const r = parseImageRef(image);
  if (!('ref' in r)) throw new Error(r.error);
  const l = cat.lookup(r.ref);
  return 'found' in l ? 'found' : l.missing;
};

test('tags exist as the registries have them', () => {
  const cat = new ImageCatalog();
  const table: [string, string][] = [
    ['nginx', 'found'],
    ['nginx:1.14.2', 'found'],
    ['nginx:1.27-alpine', 'found'],
    ['nginx:1.27.5', 'found'],
    ['nginx:1.27.99', 'tag'],
    ['nginx:latset', 'tag'],
    ['nginx:stable', 'found'],
    ['busybox:1.36', 'found'],
    ['busybox:1.36.1-musl', 'found'],
    ['busybox:9.9', 'tag'],
    ['registry.k8s.io/e2e-test-images/agnhost:2.40', 'found'],
    ['registry.k8s.io/e2e-test-images/agnhost:3.0', 'tag'],
    ['k8s.gcr.io/pause:3.9', 'found'],
    ['perl:5.34.0', 'found'],
    ['python:3.12-slim', 'found'],
    ['node:20-alpine', 'found'],
    ['gcr.io/google-samples/kubernetes-bootcamp:v1', 'found'],
    ['ngnix', 'repository'],
    ['someone/app:v1', 'repository'],
    ['registry.k8s.io/nope:1', 'repository'],
    ['registry.invalid/team/app:v1', 'host'],
  ];
  for (const [image, want] of table) assert.equal(lookup(cat, image), want, image);
});

test('a catalog file adds repositories, names normalized', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ksim-catalog-'));
  try {
    const file = path.join(dir, 'images.yaml');
    fs.writeFileSync(file, 'images:\n  - repository: acme/shop\n    tags: [v1, 2]\n    ports: [8080]\n    serves: tcp\n');
    const cat = new ImageCatalog();
    assert.equal(lookup(cat, 'acme/shop:v1'), 'repository');
    cat.add(loadCatalogFile(file));
    assert.equal(lookup(cat, 'acme/shop:v1'), 'found');
    assert.equal(lookup(cat, 'docker.io/acme/shop:2'), 'found');
    assert.equal(lookup(cat, 'acme/shop:v3'), 'tag');
    fs.writeFileSync(file, 'images:\n  - tags: [v1]\n');
    assert.throws(() => loadCatalogFile(file), /images\[0\]\.repository: required/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
