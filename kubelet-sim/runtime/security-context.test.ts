// Table tests of the user a container runs as, kubelet's runAsNonRoot check and the read-only root filesystem.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Container, Pod, PodSecurityContext } from 'kubernetes-types/core/v1.js';
import { Volume } from './filesystem.ts';
import { ReadOnlyRootFs, containerUser, runAsNonRootError } from './security-context.ts';

const pod = (sc: PodSecurityContext = {}, c: Partial<Container> = {}): { pod: Pod; c: Container } => {
  const container: Container = { name: 'app', image: 'busybox', ...c };
  return {
    pod: { metadata: { name: 'p', namespace: 'default', uid: 'u-1' }, spec: { securityContext: sc, containers: [container] } },
    c: container,
  };
};

test('containerUser: securityContext over the image USER, groups sorted with fsGroup and supplementalGroups', () => {
  const cases: {
    name: string;
    sc?: PodSecurityContext;
    c?: Partial<Container>;
    image?: string;
    want: { uid: number; gid: number; groups: number[] };
  }[] = [
    { name: 'root image, nothing set', want: { uid: 0, gid: 0, groups: [0, 10] } },
    { name: 'runAsUser only keeps gid 0', sc: { runAsUser: 1000 }, want: { uid: 1000, gid: 0, groups: [0] } },
    { name: 'runAsUser and fsGroup', sc: { runAsUser: 1000, fsGroup: 2000 }, want: { uid: 1000, gid: 0, groups: [0, 2000] } },
    {
      name: 'the docs example',
      sc: { runAsUser: 1000, runAsGroup: 3000, fsGroup: 2000, supplementalGroups: [4000] },
      want: { uid: 1000, gid: 3000, groups: [2000, 3000, 4000] },
    },
    {
      name: 'container overrides Pod',
      sc: { runAsUser: 1000 },
      c: { securityContext: { runAsUser: 2000, runAsGroup: 5 } },
      want: { uid: 2000, gid: 5, groups: [5] },
    },
    { name: 'numeric image user', image: '65535:65535', want: { uid: 65535, gid: 65535, groups: [65535] } },
    { name: 'named image user', image: 'nginx', want: { uid: 101, gid: 101, groups: [101] } },
  ];
  for (const tc of cases) {
    const { pod: p, c } = pod(tc.sc, tc.c);
    assert.deepEqual(containerUser(p, c, tc.image), tc.want, tc.name);
  }
});

test('runAsNonRootError: kubelet verifyRunAsNonRoot messages', () => {
  const where = '(pod: "p_default(u-1)", container: app)';
  const cases: { sc: PodSecurityContext; image?: string; want?: string }[] = [
    { sc: {}, want: undefined },
    { sc: { runAsNonRoot: true }, want: `container has runAsNonRoot and image will run as root ${where}` },
    { sc: { runAsNonRoot: true, runAsUser: 0 }, want: `container's runAsUser breaks non-root policy ${where}` },
    { sc: { runAsNonRoot: true, runAsUser: 1000 }, want: undefined },
    { sc: { runAsNonRoot: true }, image: '1000', want: undefined },
    {
      sc: { runAsNonRoot: true },
      image: 'nginx',
      want: `container has runAsNonRoot and image has non-numeric user (nginx), cannot verify user is non-root ${where}`,
    },
  ];
  for (const tc of cases) {
    const { pod: p, c } = pod(tc.sc);
    assert.equal(runAsNonRootError(p, c, tc.image), tc.want, JSON.stringify(tc));
  }
});

test('ReadOnlyRootFs: writes outside volumes are refused, volumes and image files stay', () => {
  const fs = new ReadOnlyRootFs({ '/etc/hostname': 'p\n' });
  fs.mount('/data', new Volume('data'));
  fs.seal();
  assert.equal(fs.read('/etc/hostname'), 'p\n');
  assert.equal(fs.write('/x', 'a'), 'Read-only file system');
  assert.equal(fs.write('/tmp/x', 'a'), 'Read-only file system');
  assert.equal(fs.read('/x'), undefined);
  assert.equal(fs.write('/data/x', 'a'), undefined);
  assert.equal(fs.read('/data/x'), 'a');
  assert.equal(fs.remove('/etc/hostname'), false);
});
