// Scrapes every node's kubelet for its resource metrics, as metrics-server
// does: GET /metrics/resource on the kubelet's port, with the apiserver's
// kubelet client certificate (kubelet authorizes it as nodes/metrics), a
// timeout per node, and the nodes that fail left out of the batch. ksim's
// simulated nodes share one kubelet port per kubelet-sim process, so the
// node is named in the query (`?node=`), which a real kubelet ignores.
import type { Node } from 'kubernetes-types/core/v1.js';
import http from 'node:http';
import https from 'node:https';
import type { Logger } from '../../shared/log/logger.ts';
import type { Store } from '../storage/store.ts';
import type { KubeletClientTls } from '../handlers/subresources/kubelet-proxy.ts';
import { decodeBatch, type MetricsBatch } from './resource-metrics-text.ts';

const NODES_BUCKET = '/registry/core/nodes';
const ENDPOINT_ANNOTATION = 'ksim.dev/kubelet-endpoint';
/** A scrape larger than this is refused (5,000 containers are about 1.5 MB). */
const MAX_BODY = 64 * 1024 * 1024;

/** Fetches one node's /metrics/resource text; rejects on any failure. */
export type FetchMetrics = (node: Node, base: string) => Promise<string>;

/** The nodes in the store. */
export function storedNodes(store: Store): Node[] {
  const out: Node[] = [];
  for (const key of store.keys(NODES_BUCKET, `${NODES_BUCKET}/`)) {
    const e = store.get(key);
    if (e) out.push(JSON.parse(e.json) as Node);
  }
  return out;
}

/** The kubelet base URL of a node, as kubelet-proxy.ts finds it. */
export function kubeletBase(node: Node): string | undefined {
  const annotated = node.metadata?.annotations?.[ENDPOINT_ANNOTATION];
  const port = node.status?.daemonEndpoints?.kubeletEndpoint?.Port;
  const base = annotated ?? (port ? `http://127.0.0.1:${port}` : undefined);
  return base?.replace(/\/+$/, '');
}

/** The real fetch: HTTP(S) with the client certificate and a timeout. */
export function kubeletFetcher(tls: KubeletClientTls, timeoutMs: number): FetchMetrics {
  // Nodes of one kubelet-sim share a port: keep the connections open between scrapes.
  const agents = { http: new http.Agent({ keepAlive: true, maxSockets: 8 }), https: new https.Agent({ keepAlive: true, maxSockets: 8 }) };
  return (node, base) =>
    new Promise((resolve, reject) => {
      const url = `${base}/metrics/resource?node=${encodeURIComponent(node.metadata?.name ?? '')}`;
      const secure = url.startsWith('https:');
      const opts: https.RequestOptions = secure
        ? { agent: agents.https, cert: tls?.certPem, key: tls?.keyPem, rejectUnauthorized: false, timeout: timeoutMs }
        : { agent: agents.http, timeout: timeoutMs };
      let req: http.ClientRequest;
      try {
        req = (secure ? https : http).get(url, opts, (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > MAX_BODY) req.destroy(new Error('response too large'));
            else chunks.push(c);
          });
          res.on('end', () => {
            const body = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode !== 200) reject(new Error(`request failed, status: "${res.statusCode} ${res.statusMessage ?? ''}"`));
            else resolve(body);
          });
          res.on('error', reject);
        });
      } catch (err) {
        return reject(err instanceof Error ? err : new Error(String(err)));
      }
      req.on('timeout', () => req.destroy(new Error('context deadline exceeded')));
      req.on('error', reject);
    });
}

/** Scrapes every node at once; returns the batches of those that answered. */
export async function scrapeNodes(nodes: Node[], fetch: FetchMetrics, now: () => number, log: Logger): Promise<Map<string, MetricsBatch>> {
  const out = new Map<string, MetricsBatch>();
  await Promise.all(
    nodes.map(async (node) => {
      const name = node.metadata?.name ?? '';
      const base = kubeletBase(node);
      if (!base) return;
      try {
        const text = await fetch(node, base);
        out.set(name, decodeBatch(text, now()));
      } catch (err) {
        log.debug({ node: name, err: (err as Error).message }, 'Failed to scrape node');
      }
    }),
  );
  return out;
}
