// Asserting on a kubectl or helm run: the one check every end-to-end test makes.
import assert from 'node:assert/strict';
import type { ToolResult } from './kubectl.ts';

/** Asserts the run exited 0 (showing its stderr and stdout if not) and returns its stdout. */
export function ok(r: ToolResult): string {
  assert.equal(r.code, 0, `kubectl failed (${r.code}):\n${r.stderr}\n${r.stdout}`);
  return r.stdout;
}
