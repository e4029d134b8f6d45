// A command whose output is piped into one that stops reading early
// (`ksim status | head -1`) ends quietly with exit 0, as Unix tools do, not
// with an EPIPE stack trace.
import process from 'node:process';

/** Makes an EPIPE on stdout end the process with exit 0; other stdout errors are still thrown. */
export function exitQuietlyWhenStdoutCloses(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}
