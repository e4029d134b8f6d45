// /readyz and /livez as kube-apiserver writes them: named checks, "ok" when
// all pass, otherwise 503 with one "[+]name ok" / "[-]name failed: reason
// withheld" line per check (the store logs the cause itself, once),
// ?verbose for the list on success, ?exclude=NAME to skip a check. The
// storage check is kube's "etcd" one: it fails while writes cannot reach the disk.
import type { Request, Response } from 'express';
import type { Store } from './store.ts';
import { describeStorageFailure } from './storage-errors.ts';

/** One named check: undefined when it passes, else why it fails (never sent to the client). */
export interface HealthCheck {
  name: string;
  check(): string | undefined;
}

/** kube's "etcd" check: fails while storage refuses writes. */
export function storageCheck(store: Pick<Store, 'health'>): HealthCheck {
  return {
    name: 'etcd',
    check() {
      const h = store.health;
      return h.ok ? undefined : `storage failing since ${new Date(h.sinceMs).toISOString()}: ${describeStorageFailure(h.error)}`;
    },
  };
}

/** An express handler for `endpoint` ("readyz", "livez", "healthz") over `checks`. */
export function healthHandler(endpoint: string, checks: HealthCheck[]) {
  return (req: Request, res: Response): void => {
    const excluded = new Set([req.query.exclude ?? []].flat().map(String));
    const results = checks.filter((c) => !excluded.has(c.name)).map((c) => ({ name: c.name, reason: c.check() }));
    const failed = results.some((r) => r.reason !== undefined);
    const verbose = req.query.verbose !== undefined;
    const lines = results.map((r) => (r.reason === undefined ? `[+]${r.name} ok` : `[-]${r.name} failed: reason withheld`));
    res.type('text/plain');
    if (failed) {
      res.status(503).send(`${lines.join('\n')}\n${endpoint} check failed\n`);
    } else if (verbose) {
      res.send(`${lines.join('\n')}\n${endpoint} check passed\n`);
    } else {
      res.send('ok');
    }
  };
}
