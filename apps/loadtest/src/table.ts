import { performance } from 'node:perf_hooks';
import { createTable, messageOfAction, requestIdentity, type TableView } from '@dominoes/protocol';
import { seatAfter, type SeededRng } from '@dominoes/rules';
import type { LoadConfig } from './args';
import { LeanSeat, SeatError, type Reply, type SeatEvents } from './lean-client';
import type { Recorder } from './stats';

/** What every table of a run shares. */
export interface RunContext {
  readonly config: LoadConfig;
  readonly httpUrl: string;
  readonly wsUrl: string;
  readonly rec: Recorder;
  readonly rng: SeededRng;
  /** Seats act (moves, host intents) only while this is true. */
  acting: boolean;
  /** The run is ending: closes and failed replies are no longer counted. */
  stopping: boolean;
}

/** An action waiting for its views: own seat's and every seat's first view of version ≥ the ack's. */
interface Measure {
  readonly t0: number;
  readonly actor: number;
  readonly inWindow: boolean;
  version: number;
  /** Bit i: seat i has it. */
  got: number;
  lastAt: number;
}

/** How long an action may wait for all its views before it counts as unmatched. */
const MEASURE_EXPIRY_MS = 30_000;
/** How long a version may stay unread waiting for its likely actor (`TableRun.waitForActor`). */
const UNREAD_WAIT_MS = 1_000;
/** The most a seat waits before reconnecting (backoff doubles from 500 ms). */
const MAX_BACKOFF_MS = 10_000;

/** One seat: its socket, and what it is doing. */
class Bot {
  busy = false;
  timer: NodeJS.Timeout | null = null;
  /** The view version the seat last acted on: it acts at most once per version. */
  handledVersion = -1;
  /** The version of its last ack: it waits for that view before acting again. */
  ackVersion = -1;
  reconnectAttempts = 0;
  reconnecting = false;
  /** The seat it sits in, from the last view of its own it read (the others join in any order). */
  seatNumber: number | null = null;
  /** When it last sent an intent (performance.now()): --seat-rate spaces them. */
  lastIntentAt = Number.NEGATIVE_INFINITY;

  constructor(
    readonly index: number,
    readonly seat: LeanSeat,
  ) {}

  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}

type Intent = 'move' | 'startRound' | 'newMatch';

/** What the table looked like at its latest version (seen by any of its seats). */
interface Seen {
  readonly version: number;
  readonly matchNumber: number;
  readonly roundNumber: number;
  readonly logLength: number;
  readonly clockKind: NonNullable<TableView['clock']>['kind'] | null;
  readonly deadline: number | null;
  /** What every seat's view of this version shows alike: who may act (`mayAct`). */
  readonly status: TableView['status'];
  readonly hostSeat: number | null;
  readonly phase: NonNullable<TableView['game']>['phase'] | null;
  readonly turn: number | null;
}

/**
 * Whether the seat `me` may have something to do at the table as `seen` shows it: false only when
 * `intentFor` of that seat's own view of the same version is sure to be null (status, host seat,
 * phase and turn are the same in every seat's view), so the other seats' views need not be parsed.
 */
function mayAct(seen: Seen, me: number): boolean {
  if (seen.status === 'finished') return seen.hostSeat === me;
  if (seen.status !== 'playing' || seen.phase === null) return false;
  if (seen.phase === 'between-rounds') return seen.hostSeat === me;
  return seen.phase === 'playing' && seen.turn === me;
}

/**
 * The seat most likely to act on the version after `seen` (null: no good guess): after a move, the
 * seat after the mover; at the end of a match, the host. A guess only saves a parse: the first view
 * of a new version that reaches a seat is read whole to learn the table's state (`observe`), and when
 * that seat is the one about to act, its own view (which it must read anyway) is the only one read.
 */
function likelyActor(seen: Seen, seats: number): number | null {
  if (seen.status === 'finished') return seen.hostSeat;
  if (seen.status !== 'playing' || seen.phase !== 'playing' || seen.turn === null) return null;
  return seatAfter(seen.turn, seats);
}

/** A table version some seats have and nobody has read yet: who holds it, since when. */
interface Unread {
  version: number;
  /** The first seat that had it, and when (performance.now()): what deadline lateness is measured by. */
  firstSeat: LeanSeat;
  firstAt: number;
  /** The seats that hold it, waiting for the table's state before they decide. */
  waiting: Bot[];
}

export type TableStatus = 'setup' | TableView['status'] | 'failed';

export const errorCode = (error: unknown): string => {
  if (error instanceof SeatError) return error.code;
  if (error && typeof error === 'object' && 'code' in error && typeof error.code === 'string')
    return /^[A-Z_]+$/.test(error.code) ? error.code : 'HTTP_FAILED';
  return 'HTTP_FAILED';
};

const withTimeout = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new SeatError('TIMEOUT', `${what}: no answer in ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });

/**
 * One table of the run: opened through the HTTP API as a browser does (an identity per seat, the
 * host creates the table), a socket per seat that joins it, then seats that play legal moves from
 * their own view after a think time. It also measures: action-to-view latencies, deadline
 * lateness, matches finished.
 */
export class TableRun implements SeatEvents {
  tableId: string | null = null;
  status: TableStatus = 'setup';
  /** Every seat has joined (its ack came). */
  ready = false;
  bots: Bot[] = [];
  private readonly bySeat = new Map<LeanSeat, Bot>();
  private measures: Measure[] = [];
  private seen: Seen | null = null;
  private unread: Unread | null = null;
  private lastFinishedMatch = 0;
  private fullMask = 0;

  constructor(
    readonly index: number,
    private readonly ctx: RunContext,
  ) {}

  /** Identities, the table, sockets, joins. Throws (with a code) when any step fails. */
  async open(): Promise<void> {
    const { config, httpUrl, wsUrl, rec } = this.ctx;
    const timeout = config.replyTimeoutMs;
    const identities = await Promise.all(
      Array.from({ length: config.seats }, (_, s) =>
        withTimeout(requestIdentity(httpUrl, `lt-${this.index}-${s}`), timeout, 'POST /api/identity'),
      ),
    );
    const { tableId } = await withTimeout(
      createTable(httpUrl, identities[0]!.token, {
        variant: config.variant,
        target: config.target,
        seats: config.seats,
      }),
      timeout,
      'POST /api/tables',
    );
    this.tableId = tableId;
    this.bots = identities.map(
      (identity, i) => new Bot(i, new LeanSeat(wsUrl, identity.token, this, timeout)),
    );
    for (const bot of this.bots) this.bySeat.set(bot.seat, bot);
    this.fullMask = (1 << this.bots.length) - 1;
    this.status = 'waiting';
    // The host goes to the table first (it made it), then the others.
    const seatOne = async (bot: Bot) => {
      rec.connect.record(await bot.seat.connect());
      const t0 = performance.now();
      const reply = await bot.seat.request('join', { table: tableId });
      if (!reply.ok) throw new SeatError(reply.code ?? 'INTERNAL', 'join refused');
      rec.join.record(performance.now() - t0);
      this.joined(bot, reply);
    };
    await seatOne(this.bots[0]!);
    await Promise.all(this.bots.slice(1).map(seatOne));
    this.ready = true;
    for (const bot of this.bots) this.decide(bot);
  }

  fail(): void {
    this.status = 'failed';
    for (const bot of this.bots) {
      bot.stop();
      bot.seat.close();
    }
  }

  get connectedSeats(): number {
    let n = 0;
    for (const bot of this.bots) if (bot.seat.connected) n++;
    return n;
  }

  get pendingIntents(): number {
    let n = 0;
    for (const bot of this.bots) n += bot.seat.pendingCount;
    return n;
  }

  get pendingMeasures(): number {
    return this.measures.length;
  }

  /* ---------------------------------------------------------------- acting */

  private intentFor(view: TableView): Intent | null {
    const me = view.you.seat;
    if (view.status === 'finished') return view.hostSeat === me ? 'newMatch' : null;
    const game = view.game;
    if (view.status !== 'playing' || game === null) return null;
    if (this.ctx.config.mode !== 'play') return null;
    if (game.phase === 'between-rounds') return view.hostSeat === me ? 'startRound' : null;
    if (game.phase === 'playing' && game.turn === me && game.legal.length > 0) return 'move';
    return null;
  }

  /** Called on every new view and reply: starts thinking when this seat has something to do. */
  private decide(bot: Bot): void {
    const ctx = this.ctx;
    if (!ctx.acting || bot.busy || bot.timer !== null || !bot.seat.connected) return;
    const version = bot.seat.version;
    if (version <= bot.handledVersion || version < bot.ackVersion) return;
    const seen = this.seen;
    const me = bot.seatNumber;
    if (seen !== null && me !== null && seen.version === version && !mayAct(seen, me)) return;
    // A newer version than the table's state, left unread for its likely actor (an ack that comes
    // after the seat's view of its own move): the seat decides when that version is read.
    if (seen !== null && version > seen.version && this.unread?.waiting.includes(bot)) return;
    const view = bot.seat.view;
    if (view === null) return;
    bot.seatNumber = view.you.seat;
    if (this.intentFor(view) === null) return;
    const [min, max] = ctx.config.thinkMs;
    const rate = ctx.config.seatRate;
    // No sooner than --seat-rate allows: the gateway would drop the frame unanswered.
    const spacing = rate > 0 ? bot.lastIntentAt + 1000 / rate - performance.now() : 0;
    const think = Math.max(min + (max - min) * ctx.rng.fraction(), spacing);
    if (think <= 0) this.fire(bot);
    else
      bot.timer = setTimeout(() => {
        bot.timer = null;
        this.fire(bot);
      }, think);
  }

  /** After the think time: acts on the seat's view as it is now (it may have moved on). */
  private fire(bot: Bot): void {
    const { rec, rng } = this.ctx;
    if (!this.ctx.acting || bot.busy || !bot.seat.connected) return;
    const view = bot.seat.view!;
    const intent = this.intentFor(view);
    if (intent === null) return;
    bot.handledVersion = bot.seat.version;
    bot.busy = true;
    bot.lastIntentAt = performance.now();
    if (intent !== 'move') {
      rec.count('hostIntents');
      bot.seat.send(intent, {}, (reply) => this.replied(bot, reply, null));
      return;
    }
    const legal = view.game!.legal;
    const action = legal[rng.below(legal.length)]!;
    const measure: Measure = {
      t0: performance.now(),
      actor: bot.index,
      inWindow: rec.measuring,
      version: -1,
      got: 0,
      lastAt: 0,
    };
    // The seat's frame for the action, with the id the lean client gives it.
    bot.seat.sendFrame(
      (id) => messageOfAction(action, id),
      (reply) => this.replied(bot, reply, measure),
    );
  }

  private replied(bot: Bot, reply: Reply, measure: Measure | null): void {
    bot.busy = false;
    if (this.ctx.stopping) return;
    if (!reply.ok) {
      this.ctx.rec.error(reply.code ?? 'UNKNOWN');
    } else {
      if (reply.version !== null) bot.ackVersion = Math.max(bot.ackVersion, reply.version);
      if (measure !== null) {
        this.ctx.rec.count('actions');
        if (reply.version !== null) this.track(measure, reply.version);
      }
    }
    this.decide(bot);
  }

  /* ------------------------------------------------------------- measuring */

  private track(m: Measure, version: number): void {
    m.version = version;
    for (const bot of this.bots) {
      const at = bot.seat.firstArrivalAtLeast(version);
      if (at !== null && this.arrive(m, bot.index, at)) return;
    }
    this.measures.push(m);
  }

  /** Seat `i` has the action's view at `at`; true when every seat has it (the measure is done). */
  private arrive(m: Measure, i: number, at: number): boolean {
    const bit = 1 << i;
    if ((m.got & bit) !== 0) return false;
    m.got |= bit;
    if (at > m.lastAt) m.lastAt = at;
    if (i === m.actor) this.ctx.rec.ownView(at - m.t0, m.inWindow);
    if (m.got !== this.fullMask) return false;
    this.ctx.rec.allViews(m.lastAt - m.t0, m.inWindow);
    return true;
  }

  view(seat: LeanSeat, at: number): void {
    const bot = this.bySeat.get(seat);
    if (bot === undefined) return;
    const version = seat.version;
    this.ctx.rec.count('views');
    if (this.measures.length > 0) {
      this.measures = this.measures.filter((m) => !(version >= m.version && this.arrive(m, bot.index, at)));
    }
    if (this.seen === null || version > this.seen.version) {
      if (this.waitForActor(bot, version, at)) return;
      const unread = this.unread;
      if (unread !== null && unread.version === version) this.observe(seat, unread.firstSeat, unread.firstAt);
      else this.observe(seat, seat, at);
      this.readFor(unread, version);
    }
    this.decide(bot);
  }

  /**
   * After `version` was read: the seats that waited for it decide. Those that already hold a newer
   * version (it came while they waited) wait on for that one's likely actor, rather than read their own.
   */
  private readFor(unread: Unread | null, version: number): void {
    if (unread === null) return;
    const later = unread.version > version ? unread.waiting.filter((b) => b.seat.version > version) : [];
    const now = unread.waiting.filter((b) => !later.includes(b));
    unread.waiting = later;
    if (later.length === 0) this.unread = null;
    for (const waiting of now) this.decide(waiting);
  }

  /**
   * True when this seat's view of a new version is left unread for now: the seat likely to act next
   * has not had it yet and will read its own (then every waiting seat decides). The last connected
   * seat to get it reads it in any case, and the sweep reads one that waited a second.
   */
  private waitForActor(bot: Bot, version: number, at: number): boolean {
    const seen = this.seen;
    const actor = seen === null ? null : likelyActor(seen, this.bots.length);
    if (actor === null || bot.seatNumber === null || bot.seatNumber === actor) return false;
    let unread = this.unread;
    if (unread !== null && unread.waiting.length + 1 >= this.connectedSeats) return false;
    if (unread === null) {
      unread = { version, firstSeat: bot.seat, firstAt: at, waiting: [] };
      this.unread = unread;
    } else if (version > unread.version) {
      unread.version = version;
      unread.firstSeat = bot.seat;
      unread.firstAt = at;
    }
    if (!unread.waiting.includes(bot)) unread.waiting.push(bot);
    return true;
  }

  /** An unread version that waited too long (its likely actor left): read by a seat that has it. */
  private readUnread(now: number): void {
    const unread = this.unread;
    if (unread === null || now - unread.firstAt < UNREAD_WAIT_MS) return;
    this.unread = null;
    const holder = unread.waiting[unread.waiting.length - 1];
    if (holder !== undefined && (this.seen === null || holder.seat.version > this.seen.version))
      this.observe(holder.seat, unread.firstSeat, unread.firstAt);
    for (const waiting of unread.waiting) this.decide(waiting);
  }

  /**
   * The first arrival of each table version (`at`, at `timeSeat`), read from `seat`'s view: deadline
   * moves, finished matches, the status.
   */
  private observe(seat: LeanSeat, timeSeat: LeanSeat, at: number): void {
    const view = seat.view;
    if (view === null) return;
    const bot = this.bySeat.get(seat);
    if (bot !== undefined) bot.seatNumber = view.you.seat;
    const game = view.game;
    const prev = this.seen;
    if (
      prev !== null &&
      game !== null &&
      prev.clockKind === 'turn' &&
      prev.deadline !== null &&
      prev.matchNumber === view.matchNumber &&
      prev.roundNumber === game.roundNumber
    ) {
      for (let k = prev.logLength; k < game.log.length; k++) {
        if (game.log[k]!.by === 'deadline') {
          this.ctx.rec.deadlineLateness(timeSeat.serverTimeAt(at) - prev.deadline);
          break;
        }
      }
    }
    this.seen = {
      version: seat.version,
      matchNumber: view.matchNumber,
      roundNumber: game?.roundNumber ?? 0,
      logLength: game?.log.length ?? 0,
      clockKind: view.clock?.kind ?? null,
      deadline: view.clock?.deadline ?? null,
      status: view.status,
      hostSeat: view.hostSeat,
      phase: game?.phase ?? null,
      turn: game?.turn ?? null,
    };
    if (this.status !== 'failed') this.status = view.status;
    if (view.status === 'finished' && view.matchNumber !== this.lastFinishedMatch) {
      this.lastFinishedMatch = view.matchNumber;
      this.ctx.rec.count('matchesFinished');
    }
  }

  viewRead(): void {
    this.ctx.rec.count('viewsRead');
  }

  strayError(_seat: LeanSeat, code: string): void {
    if (!this.ctx.stopping) this.ctx.rec.error(code);
  }

  /** After a join: the seat acts only on a view at least as new as the table the join saw. */
  private joined(bot: Bot, reply: Reply): void {
    if (reply.version !== null) bot.ackVersion = Math.max(bot.ackVersion, reply.version);
  }

  /* ---------------------------------------------------------- reconnecting */

  lost(seat: LeanSeat, closeCode: number, afterMs: number | null): void {
    const bot = this.bySeat.get(seat);
    if (bot === undefined || this.ctx.stopping || this.status === 'failed') return;
    this.ctx.rec.disconnect(closeCode);
    bot.stop();
    bot.busy = false;
    this.reconnectLater(bot, afterMs);
  }

  private reconnectLater(bot: Bot, afterMs: number | null): void {
    if (bot.reconnecting) return;
    bot.reconnecting = true;
    const backoff =
      Math.min(MAX_BACKOFF_MS, 500 * 2 ** bot.reconnectAttempts) * (0.5 + 0.5 * this.ctx.rng.fraction());
    setTimeout(() => void this.reconnect(bot), afterMs ?? backoff);
  }

  /** Like a browser: a new socket, hello with the same token, join the same table again. */
  private async reconnect(bot: Bot): Promise<void> {
    const { rec } = this.ctx;
    if (this.ctx.stopping) return;
    try {
      rec.connect.record(await bot.seat.connect());
      const reply = await bot.seat.request('join', { table: this.tableId });
      if (!reply.ok) throw new SeatError(reply.code ?? 'INTERNAL', 'join refused');
      this.joined(bot, reply);
      bot.reconnecting = false;
      bot.reconnectAttempts = 0;
      rec.count('reconnects');
      this.decide(bot);
    } catch (error) {
      bot.reconnecting = false;
      if (this.ctx.stopping) return;
      // No gateway to talk to is a failed attempt; an error frame (a token refused, a join refused) is an error.
      const code = errorCode(error);
      if (code === 'CLOSED' || code === 'TIMEOUT') rec.count('reconnectFailures');
      else rec.error(code);
      bot.reconnectAttempts += 1;
      bot.seat.close();
      this.reconnectLater(bot, null);
    }
  }

  /* ----------------------------------------------------------------- house */

  /** Once a second: intents without replies time out; actions whose views never came expire. */
  sweep(now: number): void {
    for (const bot of this.bots) bot.seat.sweep(now);
    this.readUnread(now);
    if (this.measures.length === 0) return;
    const kept: Measure[] = [];
    for (const m of this.measures) {
      if (now - m.t0 < MEASURE_EXPIRY_MS) kept.push(m);
      else if (m.inWindow) this.ctx.rec.count('unmatched');
    }
    this.measures = kept;
  }

  stopActing(): void {
    for (const bot of this.bots) bot.stop();
  }

  close(): void {
    for (const bot of this.bots) {
      bot.stop();
      bot.seat.close();
    }
  }
}
