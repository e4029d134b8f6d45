// The shared client over HTTPS against the real apiserver: connections
// opened while others are busy resume the TLS session of an earlier one (no
// full handshake), and the apiserver still authenticates each of them by the
// client certificate of that session, as the same user.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClient } from '../shared/client/kube-client.ts';
import { loadKubeconfig } from '../shared/client/kubeconfig.ts';
import { startApiserver, type Apiserver } from './helpers/index.ts';

let server: Apiserver;
before(async () => {
  server = await startApiserver();
});
after(() => server?.stop());

interface Review {
  status: { userInfo: { username: string; groups?: string[] } };
}
const whoami = (c: KubeClient) =>
  c.request<Review>('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  });

test('connections opened in a burst resume the session and are each authenticated by its certificate', async (t) => {
  for (const identity of ['admin', 'scheduler'] as const) {
    const client = new KubeClient(loadKubeconfig(server.kubeconfigOf(identity)), { maxConnections: 8 });
    t.after(() => client.close());
    const first = await whoami(client);
    // Eight at once: seven more connections, each resuming the first one's session.
    const burst = await Promise.all(Array.from({ length: 8 }, () => whoami(client)));
    const names = new Set([first, ...burst].map((r) => r.status.userInfo.username));
    assert.deepEqual([...names], [identity === 'admin' ? 'kubernetes-admin' : 'system:kube-scheduler']);
    const stats = client.connectionStats();
    assert.equal(stats.opened, 8, JSON.stringify(stats));
    assert.ok(stats.resumed >= 6, `most new connections resume the session: ${JSON.stringify(stats)}`);
  }
});
