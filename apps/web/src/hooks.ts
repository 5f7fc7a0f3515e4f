import { createContext, useContext, useEffect, useState, useSyncExternalStore } from 'react';
import { TABLE_CODE_LENGTH, TableCodeSchema } from '@dominoes/protocol';
import type { Session, SessionState } from './session';

export const SessionContext = createContext<Session | null>(null);

export function useSession(): [SessionState, Session] {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionContext');
  const state = useSyncExternalStore(session.subscribe, session.getState);
  return [state, session];
}

/** The local time, refreshed every `everyMs` while the component is shown. */
export function useNow(everyMs = 250): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/* ---------------- routes: "/" (lobby) and "/t/:code" (a table), both served by the gateway ---------------- */

export type Route =
  | { readonly name: 'lobby' }
  /** `watch`: `/t/:code?watch=1`, the table watched instead of joined (decision 0018). */
  | { readonly name: 'table'; readonly code: string; readonly watch?: boolean }
  | { readonly name: 'matches' }
  | { readonly name: 'replay'; readonly id: string };

const ROUTE = new RegExp(`^/t/([A-Za-z0-9]{${TABLE_CODE_LENGTH}})/?$`);
const CODE_IN_LINK = new RegExp(`/t/([A-Za-z0-9]{${TABLE_CODE_LENGTH}})(?:[/?#]|$)`);
/** "Your matches" and a match's replay (the page checks the id, the gateway too). */
const MATCHES_ROUTE = /^\/matches\/?$/;
const REPLAY_ROUTE = /^\/replay\/([^/]{1,64})\/?$/;

/** The route of a path, with or without its query (`/t/:code?watch=1`). */
export function parseRoute(path: string): Route {
  const [pathname = '', query = ''] = path.split('?', 2);
  const match = ROUTE.exec(pathname);
  if (match) {
    const code = (match[1] as string).toUpperCase();
    return new URLSearchParams(query).get('watch') === '1'
      ? { name: 'table', code, watch: true }
      : { name: 'table', code };
  }
  if (MATCHES_ROUTE.test(pathname)) return { name: 'matches' };
  const replay = REPLAY_ROUTE.exec(pathname);
  return replay ? { name: 'replay', id: decoded(replay[1] as string) } : { name: 'lobby' };
}

/** A path segment decoded, or as it is when it is no valid escape ("%E0"): the page then says it is no id. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

const routeListeners = new Set<() => void>();
window.addEventListener('popstate', () => routeListeners.forEach((l) => l()));

export function navigate(path: string): void {
  if (path !== location.pathname + location.search) history.pushState(null, '', path);
  routeListeners.forEach((l) => l());
}

export function useRoute(): Route {
  const path = useSyncExternalStore(
    (listener) => {
      routeListeners.add(listener);
      return () => routeListeners.delete(listener);
    },
    () => location.pathname + location.search,
  );
  return parseRoute(path);
}

/** A table code from what a player typed or pasted: "k7m2qxp4ht9r", "https://…/t/K7M2QXP4HT9R". */
export function codeFrom(input: string): string | null {
  const text = input.trim();
  const fromLink = CODE_IN_LINK.exec(text);
  const raw = (fromLink ? fromLink[1] : text)?.toUpperCase() ?? '';
  return TableCodeSchema.safeParse(raw).success ? raw : null;
}

export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

/** A yes/no preference kept in localStorage (`'1'`/`'0'`), e.g. the sorted hand. */
export function useStoredFlag(key: string, initial = false): [boolean, (value: boolean) => void] {
  const [value, setValue] = useState<boolean>(() => {
    try {
      const saved = localStorage.getItem(key);
      return saved === null ? initial : saved === '1';
    } catch {
      return initial;
    }
  });
  const set = (next: boolean) => {
    try {
      localStorage.setItem(key, next ? '1' : '0');
    } catch {
      // storage unavailable: the choice lasts for this page
    }
    setValue(next);
  };
  return [value, set];
}
