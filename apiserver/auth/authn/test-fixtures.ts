// Test fixtures shared by the authentication tests: a store in memory with
// ServiceAccounts, Pods and Nodes, a settable clock and a fresh data dir.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { findResource } from '../../../shared/api/resources.ts';
import { objectKey } from '../../registry/keys.ts';
import { MemoryBackend } from '../../storage/memory-backend.ts';
import { Store } from '../../storage/store.ts';
import { createAuthentication, type Authentication, type AuthnOptions } from './index.ts';

/** A world to authenticate in. */
export interface World {
  store: Store;
  dir: string;
  clock: { now: Date };
  authn: Authentication;
  put(plural: 'serviceaccounts' | 'pods' | 'nodes' | 'secrets', ns: string, name: string, extra?: Record<string, unknown>): Promise<string>;
  remove(plural: 'serviceaccounts' | 'pods' | 'nodes' | 'secrets', ns: string, name: string): Promise<void>;
  close(): Promise<void>;
}

let uidCounter = 0;

/** A store, a clock at 2026-01-01T00:00:00Z and the authentication under test. */
export async function makeWorld(opts: Partial<AuthnOptions> = {}): Promise<World> {
  const store = await Store.open(new MemoryBackend());
  const dir = await mkdtemp(join(tmpdir(), 'ksim-authn-'));
  const clock = { now: new Date('2026-01-01T00:00:00Z') };
  const authn = await createAuthentication({ store, dataDir: dir, now: () => clock.now, log: pino({ level: 'silent' }), ...opts });
  const keyOf = (plural: string, ns: string, name: string) => objectKey(findResource('', 'v1', plural)!, ns, name);
  return {
    store,
    dir,
    clock,
    authn,
    async put(plural, ns, name, extra = {}) {
      const uid = `uid-${plural}-${name}-${++uidCounter}`;
      const { metadata, ...rest } = extra as { metadata?: Record<string, unknown> };
      await store.txn(keyOf(plural, ns, name), () => ({
        metadata: { name, ...(ns ? { namespace: ns } : {}), uid, ...metadata },
        ...rest,
      }));
      return uid;
    },
    async remove(plural, ns, name) {
      await store.txn(keyOf(plural, ns, name), () => null);
    },
    async close() {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
