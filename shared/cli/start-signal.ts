// `ksim up` starts the components while the apiserver is still starting, so
// that loading their code overlaps with the apiserver's start: each waits
// here, its code loaded, until the supervisor says the apiserver serves (an
// IPC message), and only then reads its kubeconfig. A component started any
// other way does not wait.

/** The environment variable `ksim up` sets on a component it starts early. */
export const WAIT_FOR_START_ENV = 'KSIM_WAIT_FOR_START';

/** The supervisor's word that the apiserver serves and the kubeconfigs are written. */
export const START_MESSAGE = { type: 'start' } as const;

/** Resolves at the supervisor's start message; exits the process if the supervisor goes first. */
export async function awaitStartSignal(): Promise<void> {
  if (process.env[WAIT_FOR_START_ENV] !== '1' || !process.send) return;
  delete process.env[WAIT_FOR_START_ENV];
  await new Promise<void>((resolve) => {
    const gone = () => process.exit(1);
    const onMessage = (m: unknown) => {
      if ((m as { type?: unknown } | null)?.type !== START_MESSAGE.type) return;
      process.off('message', onMessage);
      process.off('disconnect', gone);
      // The channel stays open for the supervisor's control requests (shared/chaos/component-control.ts),
      // but must not keep the process alive.
      process.channel?.unref();
      resolve();
    };
    process.on('message', onMessage);
    process.once('disconnect', gone);
  });
}
