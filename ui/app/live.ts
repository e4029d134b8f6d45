// The browser's end of /live: one WebSocket, reconnected after a drop; each
// message is a batch of changes (the backlog first, then as they happen).
import type { Change } from '../../shared/api/history-types.ts';

/** The state of the connection, for the header. */
export type LiveState = 'connecting' | 'live' | 'reconnecting';

/** Connects and calls `onChanges` for every batch; returns a function that disconnects. */
export function connectLive(onChanges: (items: Change[]) => void, onState: (s: LiveState) => void): () => void {
  let ws: WebSocket | undefined;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const open = () => {
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/live`;
    ws = new WebSocket(url);
    ws.onopen = () => onState('live');
    ws.onmessage = (ev) => {
      try {
        const msg = JSON.parse(String(ev.data)) as { items?: Change[] };
        if (Array.isArray(msg.items) && msg.items.length) onChanges(msg.items);
      } catch {
        // A message that is not JSON is not ours: ignore it.
      }
    };
    ws.onclose = () => {
      if (stopped) return;
      onState('reconnecting');
      timer = setTimeout(open, 1000);
    };
  };
  onState('connecting');
  open();
  return () => {
    stopped = true;
    clearTimeout(timer);
    ws?.close();
  };
}
