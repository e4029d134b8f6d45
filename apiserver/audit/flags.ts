// kube-apiserver's --audit-* flags for `ksim apiserver`, and the auditor
// they configure: spread AUDIT_FLAGS into the command's flags, then call
// auditorFromFlags once at start (a bad policy file stops the start, as it
// stops kube-apiserver's).
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { FlagSpec, FlagValues } from '../../shared/cli/flags.ts';
import { Auditor } from './auditor.ts';
import { loadPolicyFile } from './policy.ts';

/** The flags, with kube's names; the log defaults to DIR/audit.log (kube has no log without --audit-log-path). */
export const AUDIT_FLAGS = {
  'audit-log-path': { type: 'string', default: '', help: 'audit log file (default DIR/audit.log; - for standard output)' },
  'audit-policy-file': {
    type: 'string',
    default: '',
    help: 'audit.k8s.io/v1 Policy file (default: every request at Metadata, without the RequestReceived stage)',
  },
  'audit-log-maxsize': { type: 'number', default: 0, help: 'megabytes before the audit log is rotated (0: 100)' },
  'audit-log-maxbackup': { type: 'number', default: 0, help: 'rotated audit logs to keep (0: all)' },
  'audit-log-maxage': { type: 'number', default: 0, help: 'days to keep rotated audit logs (0: forever)' },
} satisfies FlagSpec;

/** The Auditor the flags describe; throws kube's message for an unreadable or invalid policy file. */
export function auditorFromFlags(flags: FlagValues<typeof AUDIT_FLAGS>, dataDir: string, log?: Logger): Auditor {
  const policyFile = flags['audit-policy-file'];
  return new Auditor({
    path: flags['audit-log-path'] || join(dataDir, 'audit.log'),
    policy: policyFile ? loadPolicyFile(policyFile) : undefined,
    maxSizeMB: flags['audit-log-maxsize'],
    maxBackups: flags['audit-log-maxbackup'],
    maxAgeDays: flags['audit-log-maxage'],
    log,
  });
}
