import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';

/**
 * One polite live region for the whole page: turns, passes (with their end numbers), the table's own
 * moves at a deadline, round results. Each message is a new node, so a screen reader reads it even
 * when the text repeats.
 */

interface Message {
  readonly id: number;
  readonly text: string;
}

const AnnounceContext = createContext<(text: string) => void>(() => undefined);

export function useAnnounce(): (text: string) => void {
  return useContext(AnnounceContext);
}

export function LiveRegionProvider({ children }: { children: ReactNode }) {
  const [messages, setMessages] = useState<Message[]>([]);
  const counter = useRef(0);
  const announce = useCallback((text: string) => {
    if (!text) return;
    counter.current += 1;
    const id = counter.current;
    setMessages((list) => [...list.slice(-4), { id, text }]);
  }, []);
  const value = useMemo(() => announce, [announce]);
  return (
    <AnnounceContext.Provider value={value}>
      {children}
      <div className="sr-only" aria-live="polite" aria-atomic="false" role="log" data-testid="live">
        {messages.map((m) => (
          <p key={m.id}>{m.text}</p>
        ))}
      </div>
    </AnnounceContext.Provider>
  );
}
