import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import {
  applyViewChange,
  type ClientIntent,
  type ServerMessage,
  type TableView,
  type ViewChange,
} from '@dominoes/protocol';

/**
 * A lean client of the gateway's WebSocket protocol for thousands of sockets in one process. It
 * speaks the protocol's types, but reads frames with JSON.parse only: the protocol library's
 * DominoesClient checks every frame against the zod schemas, which costs about 4.5 times the
 * parse itself on a view frame (docs/loadtest.md). The server is what is tested, not the client.
 * A view frame's version and server time are read from its head's bytes (`readViewHead`); the view
 * itself is decoded and parsed only when the seat's `view` is read (issue 14: parsing all four views
 * of every action was most of the tool's CPU, and a seat whose turn it is not never looks at its view).
 * A `viewChange` frame (decision 0036) is read the same way, and kept as bytes until the view is
 * read: then the changes since the last whole view are parsed and applied in order. A change is
 * kept as text (its operations without the brackets), not as the frame's bytes: a frame's Buffer can
 * be a slice of the socket's whole read, which it would keep alive while it waits.
 */

export type ViewFrame = Extract<ServerMessage, { type: 'view' }>;
type IntentType = ClientIntent['type'];

/**
 * A view or view-change frame's head: what the tool reads of every such frame. `base`: a change's
 * base version (null for a whole view); `bodyStart`: where the view's or the change's JSON starts.
 */
export interface ViewHead {
  readonly version: number;
  readonly base: number | null;
  readonly serverTime: number;
  readonly bodyStart: number;
}

const VIEW_HEAD = Buffer.from('{"type":"view","version":');
const CHANGE_HEAD = Buffer.from('{"type":"viewChange","version":');
const BASE = Buffer.from(',"base":');
const SERVER_TIME = Buffer.from(',"serverTime":');
const VIEW = Buffer.from(',"view":');
const CHANGE = Buffer.from(',"change":');
const CLOSE_BRACE = 0x7d;

const numberAt = (frame: Buffer, start: number, end: number): number =>
  end > start ? Number(frame.toString('latin1', start, end)) : Number.NaN;

const startsWith = (frame: Buffer, head: Buffer): boolean =>
  frame.length >= head.length && frame.compare(head, 0, head.length, 0, head.length) === 0;

/**
 * The head of a view frame (`viewFrameText` of libs/protocol: type, version, serverTime, then the
 * view) or a view-change frame (`viewChangeFrameText`: type, version, base, serverTime, then the
 * change) as the gateway writes them, read from the frame's bytes (the head is ASCII, so
 * `bodyStart` is a byte offset), or null for any other frame (which is then decoded and parsed
 * whole). The tests check it against those two functions themselves.
 */
export function readViewHead(frame: Buffer): ViewHead | null {
  if (frame[frame.length - 1] !== CLOSE_BRACE) return null;
  const change = startsWith(frame, CHANGE_HEAD);
  if (!change && !startsWith(frame, VIEW_HEAD)) return null;
  const versionAt = change ? CHANGE_HEAD.length : VIEW_HEAD.length;
  const baseAt = change ? frame.indexOf(BASE, versionAt) : -1;
  if (change && baseAt < 0) return null;
  const timeAt = frame.indexOf(SERVER_TIME, change ? baseAt + BASE.length : versionAt);
  if (timeAt < 0) return null;
  const body = change ? CHANGE : VIEW;
  const bodyAt = frame.indexOf(body, timeAt + SERVER_TIME.length);
  if (bodyAt < 0) return null;
  const version = numberAt(frame, versionAt, change ? baseAt : timeAt);
  const base = change ? numberAt(frame, baseAt + BASE.length, timeAt) : null;
  const serverTime = numberAt(frame, timeAt + SERVER_TIME.length, bodyAt);
  if (!Number.isInteger(version) || !Number.isFinite(serverTime)) return null;
  if (base !== null && !Number.isInteger(base)) return null;
  return { version, base, serverTime, bodyStart: bodyAt + body.length };
}

export interface Reply {
  readonly ok: boolean;
  /** The table version the intent made (ack), or null. */
  readonly version: number | null;
  /** The error frame's code, or TIMEOUT / CLOSED from the client. */
  readonly code: string | null;
}

export interface SeatEvents {
  /**
   * A view with a version above every one this seat had (`seat.version`; `seat.view` parses it);
   * `at` is performance.now() on arrival.
   */
  view(seat: LeanSeat, at: number): void;
  /** A view was parsed (`seat.view` read a new one): what the tool's own CPU goes on. */
  viewRead(seat: LeanSeat): void;
  /** An error frame that answers no intent of ours (rate limits, a bad token). */
  strayError(seat: LeanSeat, code: string): void;
  /** The socket closed without the tool asking; `afterMs` when the server said `reconnect`. */
  lost(seat: LeanSeat, closeCode: number, afterMs: number | null): void;
}

interface Pending {
  readonly sentAt: number;
  readonly onReply: (reply: Reply) => void;
}

/** At most this many changes wait unread on a seat. */
const MAX_UNREAD_CHANGES = 64;

/** How many (version, arrival) pairs each seat keeps: enough for the acks still on their way. */
const RING = 32;

export class LeanSeat {
  socket: WebSocket | null = null;
  version = -1;
  /**
   * The newest whole view's JSON (UTF-8) while nobody has read it, the changes (their JSON) that
   * came after it or after the last view read, in order, and the last view read.
   */
  private viewBytes: Buffer | null = null;
  private changes: string[] = [];
  private parsed: TableView | null = null;
  /** max(serverTime − local epoch at arrival): the server clock's offset, from the fastest frame. */
  clockOffset = Number.NEGATIVE_INFINITY;
  private readonly versions = new Float64Array(RING).fill(-1);
  private readonly arrivals = new Float64Array(RING);
  private ringNext = 0;
  private readonly pending = new Map<string, Pending>();
  private counter = 0;
  /** True once the tool closed the socket itself: its close is not a disconnect. */
  private closing = false;
  private reconnectAfterMs: number | null = null;

  constructor(
    readonly wsUrl: string,
    readonly token: string,
    private readonly events: SeatEvents,
    private readonly replyTimeoutMs: number,
  ) {}

  /** The newest view this seat has, parsed (and its changes applied) the first time it is read. */
  get view(): TableView | null {
    const bytes = this.viewBytes;
    const changes = this.changes;
    if (bytes === null && changes.length === 0) return this.parsed;
    this.viewBytes = null;
    this.changes = [];
    this.events.viewRead(this);
    try {
      const view = bytes === null ? this.parsed : (JSON.parse(bytes.toString()) as TableView);
      // The waiting changes apply as one, parsed as one list: each object on their paths is copied once.
      const ops = changes.length === 0 ? [] : (JSON.parse(`[${changes.join(',')}]`) as ViewChange);
      this.parsed = view === null || ops.length === 0 ? view : applyViewChange(view, ops);
    } catch {
      this.parsed = null;
      this.events.strayError(this, 'BAD_FRAME');
    }
    return this.parsed;
  }

  get connected(): boolean {
    return this.socket !== null && this.socket.readyState === WebSocket.OPEN;
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  /** Opens a socket and says hello; resolves with the time from `new WebSocket` to `welcome` (ms). */
  connect(): Promise<number> {
    this.closing = false;
    this.reconnectAfterMs = null;
    const started = performance.now();
    return new Promise<number>((resolve, reject) => {
      let welcomed = false;
      let socket: WebSocket;
      try {
        socket = new WebSocket(this.wsUrl, {
          perMessageDeflate: false,
          handshakeTimeout: this.replyTimeoutMs,
        });
      } catch (error) {
        reject(new SeatError('CLOSED', error instanceof Error ? error.message : String(error)));
        return;
      }
      this.socket = socket;
      const timer = setTimeout(() => {
        if (welcomed) return;
        reject(new SeatError('TIMEOUT', 'no welcome in time'));
        socket.terminate();
      }, this.replyTimeoutMs);
      socket.on('open', () => socket.send(JSON.stringify({ type: 'hello', token: this.token })));
      socket.on('error', () => undefined); // 'close' follows and says what happened
      socket.on('message', (data: WebSocket.RawData) => {
        const at = performance.now();
        const frame = Buffer.isBuffer(data)
          ? data
          : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]);
        const head = welcomed ? readViewHead(frame) : null;
        if (head !== null) {
          const body = frame.subarray(head.bodyStart, -1);
          if (head.base === null) this.onView(head.version, head.serverTime, at, body, null);
          else this.onChange(head.version, head.base, head.serverTime, at, body);
          return;
        }
        let message: ServerMessage;
        try {
          message = JSON.parse(frame.toString()) as ServerMessage;
        } catch {
          this.events.strayError(this, 'BAD_FRAME');
          return;
        }
        if (!welcomed) {
          if (message.type === 'welcome') {
            welcomed = true;
            clearTimeout(timer);
            this.clock(message.serverTime, at);
            resolve(at - started);
          } else if (message.type === 'error' && message.id === null) {
            clearTimeout(timer);
            reject(new SeatError(message.code, message.message));
            socket.close(1000, 'bye');
          }
          return;
        }
        this.onMessage(message, at);
      });
      socket.on('close', (code: number) => {
        clearTimeout(timer);
        if (!welcomed) reject(new SeatError('CLOSED', `closed before welcome (${code})`));
        // An older socket of this seat (a retry replaced it) closing changes nothing.
        if (this.socket !== socket) return;
        this.socket = null;
        const pending = [...this.pending.values()];
        this.pending.clear();
        for (const p of pending) p.onReply({ ok: false, version: null, code: 'CLOSED' });
        if (welcomed && !this.closing) this.events.lost(this, code, this.reconnectAfterMs);
      });
    });
  }

  private clock(serverTime: number, at: number): void {
    const offset = serverTime - (performance.timeOrigin + at);
    if (offset > this.clockOffset) this.clockOffset = offset;
  }

  /** Local performance.now() arrival → server epoch ms. */
  serverTimeAt(at: number): number {
    return performance.timeOrigin + at + (Number.isFinite(this.clockOffset) ? this.clockOffset : 0);
  }

  private onMessage(message: ServerMessage, at: number): void {
    switch (message.type) {
      case 'view':
        this.onView(message.version, message.serverTime, at, null, message.view);
        return;
      case 'viewChange':
        this.onChange(
          message.version,
          message.base,
          message.serverTime,
          at,
          Buffer.from(JSON.stringify(message.change)),
        );
        return;
      case 'ack':
      case 'error': {
        const pending = message.id === null ? undefined : this.pending.get(message.id);
        if (pending === undefined) {
          if (message.type === 'error') this.events.strayError(this, message.code);
          return;
        }
        this.pending.delete(message.id!);
        pending.onReply(
          message.type === 'ack'
            ? { ok: true, version: message.version, code: null }
            : { ok: false, version: null, code: message.code },
        );
        return;
      }
      case 'reconnect':
        this.reconnectAfterMs = message.afterMs;
        return;
      default:
        return;
    }
  }

  /** A view frame: its JSON bytes (parsed when read) or, when the frame was parsed whole, the view. */
  private onView(
    version: number,
    serverTime: number,
    at: number,
    bytes: Buffer | null,
    view: TableView | null,
  ): void {
    this.clock(serverTime, at);
    if (version <= this.version) return; // a sync's repeat, or an old one
    this.viewBytes = bytes;
    this.changes = [];
    if (bytes === null) this.parsed = view;
    this.arrived(version, at);
  }

  /**
   * A view-change frame: its operations, kept as text and applied when the view is read. The gateway sends a change
   * only on top of the view it sent last; one that does not fit anyway is counted, and the whole
   * view asked for.
   */
  private onChange(version: number, base: number, serverTime: number, at: number, bytes: Buffer): void {
    this.clock(serverTime, at);
    if (version <= this.version) return;
    if (base !== this.version) {
      this.events.strayError(this, 'VIEW_CHANGE_GAP');
      this.send('sync', {}, () => undefined);
      return;
    }
    // The operations' text without the brackets ('' for none).
    if (bytes.length > 2) this.changes.push(bytes.toString('utf8', 1, bytes.length - 1));
    this.arrived(version, at);
    // A seat nobody reads for a long while holds its changes; at this many they are applied.
    if (this.changes.length >= MAX_UNREAD_CHANGES) void this.view;
  }

  private arrived(version: number, at: number): void {
    this.version = version;
    this.versions[this.ringNext] = version;
    this.arrivals[this.ringNext] = at;
    this.ringNext = (this.ringNext + 1) % RING;
    this.events.view(this, at);
  }

  /** Sends an intent; `onReply` gets its ack or error exactly once (or TIMEOUT / CLOSED). */
  send(type: IntentType, body: Record<string, unknown>, onReply: (reply: Reply) => void): void {
    this.sendFrame((id) => ({ type, id, ...body }), onReply);
  }

  /**
   * Sends the intent frame `frame` makes with the id it is given (a move's frame is made whole, not
   * spread into another object: issue 14). A text frame given as bytes, so that `ws` masks it into one
   * buffer with its header: one write on the socket, where a string's frame goes out as two buffers
   * (a `writev`).
   */
  sendFrame(frame: (id: string) => { readonly type: IntentType }, onReply: (reply: Reply) => void): void {
    const socket = this.socket;
    if (socket === null || socket.readyState !== WebSocket.OPEN) {
      onReply({ ok: false, version: null, code: 'CLOSED' });
      return;
    }
    this.counter += 1;
    const id = `l${this.counter.toString(36)}`;
    this.pending.set(id, { sentAt: performance.now(), onReply });
    socket.send(Buffer.from(JSON.stringify(frame(id))), { binary: false });
  }

  request(type: IntentType, body: Record<string, unknown> = {}): Promise<Reply> {
    return new Promise((resolve) => this.send(type, body, resolve));
  }

  /** Intents without a reply for longer than the reply timeout fail with TIMEOUT. */
  sweep(now: number): void {
    for (const [id, p] of this.pending) {
      if (now - p.sentAt < this.replyTimeoutMs) continue;
      this.pending.delete(id);
      p.onReply({ ok: false, version: null, code: 'TIMEOUT' });
    }
  }

  /** When this seat first held a view of at least `version` (performance.now()), if it still knows. */
  firstArrivalAtLeast(version: number): number | null {
    let best: number | null = null;
    for (let i = 0; i < RING; i++) {
      const v = this.versions[i]!;
      if (v >= version) {
        const at = this.arrivals[i]!;
        if (best === null || at < best) best = at;
      }
    }
    return best;
  }

  close(): void {
    this.closing = true;
    const socket = this.socket;
    if (socket === null) return;
    if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING)
      socket.close(1000, 'bye');
  }

  /** Drops the socket at once (no close handshake), for a fast end of the run. */
  terminate(): void {
    this.closing = true;
    this.socket?.terminate();
  }
}

export class SeatError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
    this.name = 'SeatError';
  }
}
