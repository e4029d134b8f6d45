#!/usr/bin/env node
// Runs `ksim kubelet-sim` on its own (tests and benchmarks use it until the
// ksim CLI dispatches to kubelet-sim/main.ts).
import { register } from 'tsx/esm/api';

register();
const { kubeletSimMain } = await import('./main.ts');
await kubeletSimMain(process.argv.slice(2));
