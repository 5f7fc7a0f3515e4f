import {
  applyAction,
  automaticAction,
  createMatch,
  deadlineAction,
  deadlineAfterDisconnect,
  deadlineAfterReconnect,
  breakDeadline,
  matchResult,
  startRound,
  turnDeadline,
  type Action,
  type ActionOrigin,
  type Durations,
  type MatchState,
  type Rng,
} from '@dominoes/rules';
import type { ErrorCode, IntentEnvelope } from '@dominoes/protocol';
import type { TableEvent } from './table-events';
import {
  CONNECTIONS_KEPT_PER_SEAT,
  isConnected,
  RECENT_INTENTS_KEPT,
  seatOfPlayer,
  type Deadline,
  type SeatState,
  type TableState,
} from './table-state';

/**
 * How a table answers each intent: seating, the host, presence, auto-pass, deadlines and the
 * match, above the rules of the game (which stay in libs/rules). Pure: time and randomness come in.
 */
export interface PolicyContext {
  readonly now: number;
  readonly rng: Rng;
  readonly durations: Durations;
  /** ABANDONED_TABLE_MS: how long a playing table may have no seat connected; the default when left out. */
  readonly abandonedTableMs?: number;
}

/** The table-service's own limits on tables (abuse limits, not rules of the game). */
export interface TableLimits {
  /** Tables one host may have open (waiting or playing) at once: MAX_OPEN_TABLES_PER_HOST. */
  readonly maxOpenTablesPerHost: number;
  /** How long a table may wait for its seats to fill before it is closed: WAITING_TABLE_TTL_MS. */
  readonly waitingTableTtlMs: number;
  /**
   * How long a playing table may have no seat connected before its match ends as abandoned and the
   * table closes: ABANDONED_TABLE_MS.
   */
  readonly abandonedTableMs: number;
}

export const DEFAULT_TABLE_LIMITS: TableLimits = {
  maxOpenTablesPerHost: 5,
  waitingTableTtlMs: 15 * 60_000,
  abandonedTableMs: 2 * 60_000,
};

/** The connection ids a seat keeps when `connectionId` is added: the newest CONNECTIONS_KEPT_PER_SEAT. */
export const withConnection = (connections: readonly string[], connectionId: string): string[] =>
  [...connections, connectionId].slice(-CONNECTIONS_KEPT_PER_SEAT);

export type Decision =
  | { readonly ok: false; readonly code: ErrorCode; readonly message: string }
  | {
      readonly ok: true;
      readonly table: TableState;
      readonly events: readonly TableEvent[];
      readonly seat: number | null;
    };

const refuse = (code: ErrorCode, message: string): Decision => ({ ok: false, code, message });

/** A table being changed: the state so far and the events that made it. */
class Change {
  readonly events: TableEvent[] = [];
  constructor(
    public table: TableState,
    readonly ctx: PolicyContext,
  ) {}

  set(patch: Partial<TableState>): void {
    this.table = { ...this.table, ...patch };
  }

  setSeat(seat: number, value: SeatState | null): void {
    const seats = this.table.seats.slice();
    seats[seat] = value;
    this.set({ seats });
  }

  emit(event: TableEvent): void {
    this.events.push(event);
  }

  get match(): MatchState {
    return this.table.match as MatchState;
  }

  /** Applies a rules action and records it; the caller knows it is legal or wants the error. */
  act(action: Action, by: ActionOrigin): Decision | null {
    const before = this.match;
    const applied = applyAction(before, action, by);
    if (!applied.ok) return refuse(applied.error.code, applied.error.message);
    const round = before.round!;
    const entry = applied.value.round!.log.at(-1)!;
    this.set({ match: applied.value });
    this.emit({
      kind: 'action',
      seat: action.seat,
      matchNumber: this.table.matchNumber,
      roundNumber: round.number,
      payload: { action, by, ...(entry.drawn ? { drawn: entry.drawn } : {}) },
    });
    return null;
  }

  /**
   * The forced passes and draws the table makes at once (auto-pass, a locked board), then the clock:
   * a new turn gets a new deadline; with `turnMoved` false and nothing forced, the clock runs on.
   */
  settle(turnMoved = true): void {
    let forced = 0;
    for (;;) {
      const action = automaticAction(this.match, (seat) => this.table.seats[seat]?.autoPass === true);
      if (action === null) break;
      this.act(action, 'auto');
      forced++;
    }
    const match = this.match;
    if (match.phase === 'playing') {
      if (turnMoved || forced > 0) this.startTurnClock();
      return;
    }
    const round = match.round!;
    this.emit({
      kind: 'round-ended',
      matchNumber: this.table.matchNumber,
      roundNumber: round.number,
      payload: { result: round.result!, scores: match.scores, opener: round.opener },
    });
    if (match.phase === 'over') {
      this.emit({
        kind: 'match-ended',
        matchNumber: this.table.matchNumber,
        payload: { result: matchResult(match) },
      });
      this.set({ status: 'finished', deadline: null });
    } else {
      // P18: a 30 s break, after which the next round starts by itself.
      this.setDeadline('break', breakDeadline(this.ctx.now, this.ctx.durations), null);
    }
  }

  /** P16/P17: 45 s for the seat to move, 5 s when it is disconnected as its turn starts. */
  startTurnClock(): void {
    const seat = this.match.round!.turn;
    const connected = isConnected(this.table.seats[seat] ?? null);
    this.setDeadline('turn', turnDeadline(this.ctx.now, connected, this.ctx.durations), seat, !connected);
  }

  /** `shortened`: a turn cut to a disconnected seat's (P17), said so in the views' clock. */
  setDeadline(kind: Deadline['kind'], at: number, seat: number | null, shortened = false): void {
    // The key is the version this change will store: unique, and it changes whenever the clock does.
    const key = String(this.table.version + this.events.length + 1);
    this.set({ deadline: { kind, at, seat, key, ...(shortened ? { shortened: true as const } : {}) } });
  }

  dealNextRound(): void {
    const dealt = startRound(this.match, this.ctx.rng);
    if (!dealt.ok) throw new Error(`startRound refused: ${dealt.error.message}`);
    const round = dealt.value.round!;
    this.set({ match: dealt.value });
    this.emit({
      kind: 'round-dealt',
      matchNumber: this.table.matchNumber,
      roundNumber: round.number,
      payload: { hands: round.hands, stock: round.stock, opener: round.opener, redeals: round.redeals },
    });
    this.settle();
  }

  startMatch(): void {
    const created = createMatch({
      variant: this.table.variant,
      seats: this.table.seatCount,
      target: this.table.target,
      oneRound: this.table.oneRound,
    });
    if (!created.ok) throw new Error(`createMatch refused a stored config: ${created.error.message}`);
    const matchNumber = this.table.matchNumber + 1;
    this.set({ match: created.value, matchNumber, status: 'playing' });
    this.emit({
      kind: 'match-started',
      matchNumber,
      payload: { config: created.value.config, players: this.table.seats.map((s) => s?.playerId ?? '') },
    });
    this.dealNextRound();
  }

  /**
   * Table policy, not a rule of the game (decision 0017): while a playing table has no seat
   * connected its one deadline is the abandonment (`kind: abandon`), and it does not play itself;
   * when a seat is connected again the clock the match needs starts afresh (P16/P17 for a turn, a
   * new P18 break between rounds). Run after every change.
   */
  watchAbandonment(before: Deadline | null): void {
    const deadline = this.table.deadline;
    if (this.table.status !== 'playing') return;
    const anyoneConnected = this.table.seats.some(isConnected);
    if (!anyoneConnected) {
      // Already running: it keeps its time (nothing else may replace it meanwhile).
      if (before?.kind === 'abandon') {
        if (deadline !== before) this.set({ deadline: before });
        return;
      }
      if (deadline?.kind === 'abandon') return;
      const after = this.ctx.abandonedTableMs ?? DEFAULT_TABLE_LIMITS.abandonedTableMs;
      this.setDeadline('abandon', this.ctx.now + after, null);
      return;
    }
    if (deadline?.kind !== 'abandon') return;
    const match = this.match;
    if (match.phase === 'playing') this.startTurnClock();
    else if (match.phase === 'between-rounds')
      this.setDeadline('break', breakDeadline(this.ctx.now, this.ctx.durations), null);
    else this.set({ deadline: null });
  }

  /** At the abandonment deadline: the match ends unfinished, with no winner, and the table closes. */
  abandon(): void {
    const match = this.match;
    this.emit({
      kind: 'match-abandoned',
      matchNumber: this.table.matchNumber,
      payload: { scores: match.scores, at: this.ctx.now },
    });
    this.set({ status: 'closed', closedReason: 'abandoned', deadline: null });
    this.emit({ kind: 'table-closed', payload: { reason: 'abandoned', at: this.ctx.now } });
  }
}

/**
 * A new table, opened by its host, who takes seat 0. Its clock is the expiry: unless every seat is
 * taken (the match's first turn replaces the deadline) it closes `waitingTableTtlMs` after `now`.
 */
export function openTable(
  id: string,
  host: { id: string; name: string },
  config: {
    variant: TableState['variant'];
    target?: number;
    seats?: number;
    oneRound?: boolean;
    chat?: boolean;
    public?: boolean;
  },
  connectionId: string | null,
  opening: { readonly now: number; readonly waitingTableTtlMs: number },
): Decision {
  const checked = createMatch(config);
  if (!checked.ok) return refuse(checked.error.code, checked.error.message);
  const { variant, seats: seatCount, target, oneRound } = checked.value.config;
  const events: TableEvent[] = [
    { kind: 'table-created', payload: { variant, seatCount, target, oneRound, hostPlayerId: host.id } },
    { kind: 'seat-taken', seat: 0, payload: { playerId: host.id, name: host.name } },
  ];
  const table: TableState = {
    id,
    variant,
    seatCount,
    target,
    oneRound,
    public: config.public === true,
    openedAt: opening.now,
    chat: config.chat !== false,
    hostPlayerId: host.id,
    status: 'waiting',
    seats: Array.from({ length: seatCount }, (_, i) =>
      i === 0
        ? {
            playerId: host.id,
            name: host.name,
            connections: connectionId ? [connectionId] : [],
            autoPass: false,
            arrival: 1,
          }
        : null,
    ),
    arrivals: 1,
    matchNumber: 0,
    match: null,
    // The key is the version the opening stores, as for every other deadline.
    deadline: {
      kind: 'expire',
      at: opening.now + opening.waitingTableTtlMs,
      key: String(events.length),
      seat: null,
    },
    version: 0,
    recentIntents: [],
  };
  return { ok: true, table, seat: 0, events };
}

function join(
  change: Change,
  player: { id: string; name: string },
  connectionId: string | null,
): number | Decision {
  const table = change.table;
  const existing = seatOfPlayer(table, player.id);
  if (existing >= 0) {
    // A player who comes back with the same identity returns to the same seat.
    const seat = table.seats[existing]!;
    if (connectionId && !seat.connections.includes(connectionId)) {
      const connections = withConnection(seat.connections, connectionId);
      const { away: _wasAway, ...back } = seat;
      change.setSeat(existing, { ...back, connections });
      change.emit({
        kind: 'presence',
        seat: existing,
        payload: { connected: true, connections: connections.length },
      });
      // P17: a seat that comes back during its turn gets no time back (libs/rules: the clock stays).
      const deadline = change.table.deadline;
      if (seat.connections.length === 0 && deadline?.kind === 'turn' && deadline.seat === existing) {
        const at = deadlineAfterReconnect(deadline.at);
        if (at !== deadline.at) change.setDeadline('turn', at, existing, deadline.shortened === true);
      }
    }
    return existing;
  }
  const free = table.seats.findIndex((s) => s === null);
  if (table.status !== 'waiting' || free < 0)
    return refuse('TABLE_FULL', 'Every seat at this table is taken.');
  // P3: seats go by arrival; the next arrival takes the lowest free seat.
  const arrivals = table.arrivals + 1;
  change.setSeat(free, {
    playerId: player.id,
    name: player.name,
    connections: connectionId ? [connectionId] : [],
    autoPass: false,
    arrival: arrivals,
  });
  change.set({ arrivals });
  change.emit({ kind: 'seat-taken', seat: free, payload: { playerId: player.id, name: player.name } });
  if (table.hostPlayerId === null) {
    change.set({ hostPlayerId: player.id });
    change.emit({ kind: 'host-changed', payload: { hostPlayerId: player.id } });
  }
  // The match starts by itself when every seat is taken; no seat is ever filled by the server.
  if (change.table.seats.every((s) => s !== null)) change.startMatch();
  return free;
}

function dropConnections(change: Change, seat: number, connectionIds: readonly string[] | 'all'): void {
  const state = change.table.seats[seat]!;
  const connections =
    connectionIds === 'all' ? [] : state.connections.filter((c) => !connectionIds.includes(c));
  if (connections.length === state.connections.length) return;
  // Its last socket closed: the player is away (decision 0026), not a seat taken that is on its way.
  change.setSeat(
    seat,
    connections.length > 0 ? { ...state, connections } : { ...state, connections, away: true },
  );
  change.emit({
    kind: 'presence',
    seat,
    payload: { connected: connections.length > 0, connections: connections.length },
  });
  if (connections.length > 0) return;
  // P17: a seat that drops during its turn has min(current deadline, now + 5 s).
  const deadline = change.table.deadline;
  if (deadline && deadline.kind === 'turn' && deadline.seat === seat) {
    const at = deadlineAfterDisconnect(deadline.at, change.ctx.now, change.ctx.durations);
    if (at !== deadline.at) change.setDeadline('turn', at, seat, true);
  }
}

function leave(change: Change, seat: number): void {
  const table = change.table;
  if (table.status !== 'waiting') {
    // After the start, leaving is being disconnected: the seat plays on by the clock (P16/P17).
    dropConnections(change, seat, 'all');
    return;
  }
  const leaving = table.seats[seat]!;
  change.setSeat(seat, null);
  change.emit({ kind: 'seat-freed', seat, payload: { playerId: leaving.playerId } });
  if (table.hostPlayerId === leaving.playerId) {
    // The host role goes to the earliest-seated player left.
    const next = change.table.seats
      .filter((s): s is SeatState => s !== null)
      .sort((a, b) => a.arrival - b.arrival)[0];
    change.set({ hostPlayerId: next?.playerId ?? null });
    change.emit({ kind: 'host-changed', payload: { hostPlayerId: next?.playerId ?? null } });
  }
}

function onDeadline(change: Change, key: string): Decision | null {
  const deadline = change.table.deadline;
  // An out-of-date deadline (the turn moved on, the clock was reset) changes nothing.
  if (deadline === null || deadline.key !== key) return null;
  if (deadline.kind === 'break') {
    change.dealNextRound();
    return null;
  }
  if (deadline.kind === 'expire') {
    // Nobody filled the seats in time: the table closes; its seated players' views say so.
    if (change.table.status !== 'waiting') return null;
    change.set({ status: 'closed', closedReason: 'expired', deadline: null });
    change.emit({ kind: 'table-closed', payload: { reason: 'expired', at: change.ctx.now } });
    return null;
  }
  if (deadline.kind === 'abandon') {
    // Nobody came back in time (decision 0017); a seat that did would have replaced this deadline.
    if (change.table.status !== 'playing' || change.table.seats.some(isConnected)) return null;
    change.abandon();
    return null;
  }
  const action = deadlineAction(change.match);
  if (action === null) return null;
  const refused = change.act(action, 'deadline');
  if (refused) return refused;
  change.settle();
  return null;
}

/** Decides what an intent does to a table. Never throws on bad input; refusals change nothing. */
export function decide(table: TableState, envelope: IntentEnvelope, ctx: PolicyContext): Decision {
  const intent = envelope.intent;
  const change = new Change(table, ctx);
  const finish = (seat: number | null): Decision => {
    if (change.events.length > 0) change.watchAbandonment(table.deadline);
    const recentIntents = [...table.recentIntents, envelope.intentId].slice(-RECENT_INTENTS_KEPT);
    return {
      ok: true,
      table: change.events.length > 0 ? { ...change.table, recentIntents } : change.table,
      events: change.events,
      seat,
    };
  };

  if (intent.kind === 'deadline') {
    const refused = onDeadline(change, intent.key);
    return refused ?? finish(null);
  }
  if (intent.kind === 'create') return refuse('TABLE_CODE_TAKEN', 'table code taken');
  const player = envelope.player;
  if (player === null) return refuse('UNAUTHENTICATED', 'This intent needs a player.');
  if (table.status === 'closed') {
    // A closed table changes no more; its seated players may still read it.
    const seated = seatOfPlayer(table, player.id);
    if (intent.kind === 'sync' && seated >= 0) return finish(seated);
    return refuse(
      'TABLE_CLOSED',
      table.closedReason === 'abandoned'
        ? 'This table was closed: no seat was connected for too long, and its match was abandoned.'
        : 'This table was closed: nobody took the free seats in time.',
    );
  }

  if (intent.kind === 'join') {
    const result = join(change, player, envelope.connectionId);
    return typeof result === 'number' ? finish(result) : result;
  }

  const seat = seatOfPlayer(table, player.id);
  if (seat < 0) return refuse('NOT_SEATED', 'You have no seat at this table.');
  const isHost = table.hostPlayerId === player.id;

  switch (intent.kind) {
    case 'sync':
      return finish(seat);
    case 'watch':
      // Applied by the spectators (TableSpectators), never here: watching changes no table.
      return refuse('NOT_ALLOWED_NOW', 'Watching is not a change of the table.');
    case 'presence':
      if (!intent.connected && envelope.connectionId) dropConnections(change, seat, [envelope.connectionId]);
      return finish(seat);
    case 'leave':
      leave(change, seat);
      return finish(seat);
    case 'autoPass': {
      const current = table.seats[seat]!;
      if (current.autoPass === intent.on) return finish(seat);
      change.setSeat(seat, { ...current, autoPass: intent.on });
      change.emit({ kind: 'auto-pass', seat, payload: { on: intent.on } });
      if (table.match?.phase === 'playing') change.settle(false);
      return finish(seat);
    }
    case 'startRound':
      if (!isHost) return refuse('NOT_HOST', 'Only the host can start the next round.');
      if (table.match?.phase !== 'between-rounds')
        return refuse('NOT_ALLOWED_NOW', 'There is no break to cut short.');
      change.dealNextRound();
      return finish(seat);
    case 'newMatch':
      if (!isHost) return refuse('NOT_HOST', 'Only the host can start a new match.');
      if (table.status !== 'finished') return refuse('MATCH_NOT_OVER', 'The match is not over yet.');
      change.startMatch();
      return finish(seat);
    case 'action': {
      // The gateway names the seat its socket is bound to; a socket left bound to a seat its player
      // no longer holds moves nobody's tiles.
      if (intent.action.seat !== seat)
        return refuse('NOT_SEATED', `You sit at seat ${seat}, not seat ${intent.action.seat}.`);
      if (table.match === null || table.status !== 'playing')
        return refuse('NO_ROUND_IN_PLAY', 'No round is in play.');
      const refused = change.act(intent.action, 'player');
      if (refused) return refused;
      change.settle();
      return finish(seat);
    }
  }
}
