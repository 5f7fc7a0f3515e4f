import { useSyncExternalStore } from 'react';
import type { ChatMessage, ChatPhrase, ChatReaction, ServerMessage } from '@dominoes/protocol';
import type { Problem, Session } from '../session';

/**
 * The table's chat as this page sees it (decision 0020): the recent messages (history on joining,
 * then live), the host's setting, each seat's latest reaction for a few seconds, and the players this
 * reader muted (remembered in localStorage, never told to anyone). Names and texts are data, shown
 * as React text nodes only.
 */

/** How long a reaction stays by the sender's seat. */
export const REACTION_SHOWN_MS = 4_000;
/** Messages the page keeps of one table. */
const KEPT = 100;
/** Players one browser remembers as muted (the oldest are forgotten first). */
const MUTED_KEPT = 200;
const MUTED_KEY = 'dominoes.chat.muted';

export interface SeatReaction {
  readonly reaction: ChatReaction;
  readonly id: string;
  readonly until: number;
}

export interface ChatState {
  readonly tableId: string | null;
  /** Whether the host left text chat on (quick phrases and reactions are always on). */
  readonly enabled: boolean;
  readonly messages: readonly ChatMessage[];
  readonly reactions: Readonly<Record<number, SeatReaction>>;
  readonly muted: ReadonlySet<string>;
  /** Messages (not from this player, not muted) received while the panel was closed. */
  readonly unread: number;
  readonly problem: Problem | null;
}

function readMuted(): string[] {
  try {
    const raw = JSON.parse(localStorage.getItem(MUTED_KEY) ?? '[]') as unknown;
    return Array.isArray(raw) ? raw.filter((x): x is string => typeof x === 'string').slice(-MUTED_KEPT) : [];
  } catch {
    return [];
  }
}

export class ChatStore {
  private state: ChatState = {
    tableId: null,
    enabled: true,
    messages: [],
    reactions: {},
    muted: new Set(readMuted()),
    unread: 0,
    problem: null,
  };
  private readonly listeners = new Set<() => void>();
  private open = true;

  constructor(private readonly session: Session) {
    session.onFrame((message) => this.onFrame(message));
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getState = (): ChatState => this.state;

  private set(change: Partial<ChatState>): void {
    this.state = { ...this.state, ...change };
    for (const listener of this.listeners) listener();
  }

  /** The panel tells whether it is open: messages that arrive while it is closed count as unread. */
  setOpen(open: boolean): void {
    this.open = open;
    if (open && this.state.unread > 0) this.set({ unread: 0 });
  }

  private onFrame(frame: ServerMessage): void {
    if (frame.type === 'chatHistory') {
      const same = frame.tableId === this.state.tableId;
      const known = same ? this.state.messages : [];
      this.set({
        tableId: frame.tableId,
        enabled: frame.enabled,
        messages: merge(frame.messages, known),
        reactions: same ? this.state.reactions : {},
        unread: same ? this.state.unread : 0,
        problem: same ? this.state.problem : null,
      });
      return;
    }
    if (frame.type !== 'chat' || frame.message.tableId !== this.state.tableId) return;
    const message = frame.message;
    const own = message.playerId === this.session.getState().identity?.playerId;
    const counted = !own && !this.state.muted.has(message.playerId) && !this.open;
    let reactions = this.state.reactions;
    if (message.body.kind === 'reaction' && !this.state.muted.has(message.playerId)) {
      const until = Date.now() + REACTION_SHOWN_MS;
      reactions = {
        ...reactions,
        [message.seat]: { reaction: message.body.reaction, id: message.id, until },
      };
      setTimeout(() => this.expire(message.seat, message.id), REACTION_SHOWN_MS);
    }
    this.set({
      messages: merge(this.state.messages, [message]),
      unread: this.state.unread + (counted ? 1 : 0),
      reactions,
    });
  }

  private expire(seat: number, id: string): void {
    if (this.state.reactions[seat]?.id !== id) return;
    const reactions = { ...this.state.reactions };
    delete reactions[seat];
    this.set({ reactions });
  }

  toggleMute(playerId: string): void {
    const muted = new Set(this.state.muted);
    if (muted.has(playerId)) muted.delete(playerId);
    else muted.add(playerId);
    try {
      localStorage.setItem(MUTED_KEY, JSON.stringify([...muted].slice(-MUTED_KEPT)));
    } catch {
      // storage unavailable: muted for this page only
    }
    this.set({ muted });
  }

  private async talk(send: Parameters<Session['talk']>[0]): Promise<boolean> {
    const problem = await this.session.talk(send);
    this.set({ problem });
    return problem === null;
  }

  say(text: string): Promise<boolean> {
    return this.talk((c) => c.request('chat', { text }));
  }
  phrase(phrase: ChatPhrase): Promise<boolean> {
    return this.talk((c) => c.request('phrase', { phrase }));
  }
  react(reaction: ChatReaction): Promise<boolean> {
    return this.talk((c) => c.request('react', { reaction }));
  }
  clearProblem(): void {
    if (this.state.problem) this.set({ problem: null });
  }
}

/** Both lists' messages, each once (by id), oldest first, the last KEPT. */
function merge(a: readonly ChatMessage[], b: readonly ChatMessage[]): ChatMessage[] {
  const byId = new Map<string, ChatMessage>();
  for (const message of [...a, ...b]) byId.set(message.id, message);
  return [...byId.values()].sort((x, y) => x.at - y.at).slice(-KEPT);
}

const stores = new WeakMap<Session, ChatStore>();

/** The page's one chat store of `session` (made on first use). */
export function chatStoreOf(session: Session): ChatStore {
  let store = stores.get(session);
  if (!store) {
    store = new ChatStore(session);
    stores.set(session, store);
  }
  return store;
}

export function useChatState(store: ChatStore): ChatState {
  return useSyncExternalStore(store.subscribe, store.getState);
}
