import { useEffect, useRef, useState } from 'react';
import { feedItemSchema } from '@rally/shared/schemas/feed';
import type { FeedItem } from '@rally/shared/schemas/feed';

export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'closed';

/**
 * Follows the client's feed over server-sent events (GET /sc/dashboard/feed/stream). EventSource
 * reconnects by itself and sends Last-Event-ID, so the server replays what was missed meanwhile.
 */
export function useFeedStream(clientId: string, onItem: (item: FeedItem) => void): StreamState {
  const [state, setState] = useState<StreamState>(() =>
    typeof EventSource === 'undefined' ? 'closed' : 'connecting',
  );
  const latest = useRef(onItem);
  useEffect(() => {
    latest.current = onItem;
  });
  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    const source = new EventSource(`/sc/dashboard/feed/stream?client_id=${encodeURIComponent(clientId)}`);
    source.addEventListener('ready', () => setState('live'));
    source.addEventListener('feed', (e) => {
      const parsed = feedItemSchema.safeParse(JSON.parse((e as MessageEvent<string>).data));
      if (parsed.success) latest.current(parsed.data);
    });
    // A refused stream (signed out, no longer a member) is closed for good; a dropped one retries.
    source.onerror = () => setState(source.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting');
    return () => source.close();
  }, [clientId]);
  return state;
}
