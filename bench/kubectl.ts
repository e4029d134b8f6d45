// `kubectl get pods -A` over 10,000 Pods (server-side Table printing) and
// `kubectl apply -f` of a 500-object file, each timed next to the same work
// through the raw REST API in the same run.
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { kubectlBin, tempDir, removeTempDir } from '../test/helpers/index.ts';
import { closedLoop, LoadClient } from './load.ts';
import { bodyTemplate, withApiserver } from './server.ts';
import type { Benchmark } from './report.ts';

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; ms: number; stdout: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(kubectlBin, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`kubectl ${args.join(' ')} failed: ${stderr.slice(0, 400)}`));
      else resolve({ code: code ?? 0, ms: performance.now() - started, stdout });
    });
  });
}

const pod = bodyTemplate(2, (ns, name) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns, labels: { app: 'bench', tier: 'web' } },
  spec: {
    containers: [
      { name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }], resources: { requests: { cpu: '100m', memory: '64Mi' } } },
    ],
  },
}));

function configMapYaml(i: number): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${i}\n  namespace: applied\n  labels: {app: bench}\ndata:\n  index: "${i}"\n  payload: "${'x'.repeat(200)}"\n`;
}

/** See the file comment. */
export const kubectlBench: Benchmark = {
  name: 'kubectl',
  description: 'kubectl get pods -A over 10,000 Pods and kubectl apply of 500 objects, each next to the raw REST API',
  async run(ctx) {
    const pods = ctx.size(10_000, 1_000);
    const objects = ctx.size(500, 50);
    await withApiserver([], async (server) => {
      const dir = await tempDir('bench-kubectl');
      try {
        const kubeconfig = server.kubeconfig;
        const env = { ...process.env, HOME: dir, KUBECONFIG: kubeconfig };
        const client = new LoadClient(server, 50);
        for (const ns of ['bench', 'applied'])
          await client.expectOk('POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: ns } }));
        ctx.progress(`creating ${pods} Pods`);
        const load = await closedLoop({
          concurrency: 50,
          total: pods,
          op: async (i) => {
            await client.expectOk('POST', '/api/v1/namespaces/bench/pods', pod('bench', `pod-${i}`));
          },
        });
        if (load.errors) throw new Error(`creating Pods failed: ${load.errorSamples.join('; ')}`);
        // Warm kubectl's discovery cache so the timings compare like with like.
        await run(['get', 'ns'], env);
        const get = await run(['get', 'pods', '-A'], env);
        const rows = get.stdout.trim().split('\n').length - 1;
        ctx.record(`kubectl get pods -A (${rows} rows, Table)`, Math.round(get.ms), 'ms');
        let raw = performance.now();
        let cont = '';
        do {
          const r = await client.expectOk('GET', `/api/v1/pods?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
          cont = JSON.parse(r.body).metadata.continue ?? '';
        } while (cont);
        ctx.record('raw paged list of the same Pods (JSON, limit 500)', Math.round(performance.now() - raw), 'ms');

        const file = join(dir, 'objects.yaml');
        await writeFile(file, Array.from({ length: objects }, (_, i) => configMapYaml(i)).join('---\n'));
        const apply = await run(['apply', '-f', file], env);
        ctx.record(`kubectl apply -f (${objects} new objects)`, Math.round(apply.ms), 'ms');
        const again = await run(['apply', '-f', file], env);
        ctx.record(`kubectl apply -f (${objects} unchanged)`, Math.round(again.ms), 'ms');
        raw = performance.now();
        for (let i = 0; i < objects; i++) {
          await client.expectOk(
            'POST',
            '/api/v1/namespaces/bench/configmaps',
            JSON.stringify({ metadata: { name: `raw-${i}` }, data: { index: String(i), payload: 'x'.repeat(200) } }),
          );
        }
        ctx.record(`raw REST creates of ${objects} objects, one at a time`, Math.round(performance.now() - raw), 'ms');
        client.close();
      } finally {
        await removeTempDir(dir);
      }
    });
  },
};
