/**
 * Boards at every stage, without the services: views made by libs/rules (seatView of random
 * rounds) are served to the real page through a mocked WebSocket, and the built page itself through
 * routed requests. Lets the test look at the longest chains and the most crowded crosses.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { TableView } from '@dominoes/protocol';
import {
  applyAction,
  createMatch,
  createSeededRng,
  legalActions,
  rulesOf,
  seatView,
  startRound,
  type Action,
  type MatchState,
  type SeededRng,
  type Variant,
} from '@dominoes/rules';
import { ROOT } from '../../../e2e/src/system';

export const GALLERY_ORIGIN = 'http://dominoes.test';
const DIST = join(ROOT, 'apps/web/dist');
export const GALLERY_TABLE = 'BRDXYZBRDXYZ';

/** `match` after a random legal action of the seat to move: the rules decide what is legal. */
function randomAction(match: MatchState, rng: SeededRng): MatchState {
  const legal = legalActions(match, match.round!.turn);
  const applied = applyAction(match, legal[rng.below(legal.length)] as Action);
  if (!applied.ok) throw new Error(applied.error.message);
  return applied.value;
}

/** The states of one random round, from the deal to the last play. */
export function roundStates(variant: Variant, seats: number, seed: number): MatchState[] {
  const rng = createSeededRng(seed);
  const created = createMatch({ variant, seats });
  if (!created.ok) throw new Error(created.error.message);
  const started = startRound(created.value, rng);
  if (!started.ok) throw new Error(started.error.message);
  let match = started.value;
  const states = [match];
  while (match.phase === 'playing' && match.round) {
    match = randomAction(match, rng);
    states.push(match);
  }
  return states;
}

/** A whole match played at random to its end (the match-over panel). */
export function wholeMatch(variant: Variant, seats: number, target: number, seed: number): MatchState {
  const rng = createSeededRng(seed);
  const created = createMatch({ variant, seats, target });
  if (!created.ok) throw new Error(created.error.message);
  let match = created.value;
  while (match.phase !== 'over') {
    if (match.phase !== 'playing') {
      const started = startRound(match, rng);
      if (!started.ok) throw new Error(started.error.message);
      match = started.value;
      continue;
    }
    match = randomAction(match, rng);
  }
  return match;
}

/** The round (of `tries` seeds) whose board grew largest, by `score`. */
export function largestRound(
  variant: Variant,
  seats: number,
  tries: number,
  score: (m: MatchState) => number,
) {
  let best: MatchState[] = [];
  let bestScore = -1;
  for (let seed = 1; seed <= tries; seed++) {
    const states = roundStates(variant, seats, seed);
    const last = states.at(-1)!;
    const s = score(last);
    if (s > bestScore) {
      bestScore = s;
      best = states;
    }
  }
  return best;
}

export function tableView(match: MatchState, seat: number, names: readonly string[]): TableView {
  const rules = rulesOf(match.config.variant);
  const game = seatView(match, seat);
  return {
    tableId: GALLERY_TABLE,
    variant: match.config.variant,
    seatCount: match.config.seats,
    target: match.config.target,
    oneRound: match.config.oneRound,
    status: match.phase === 'over' ? 'finished' : 'playing',
    hostSeat: 0,
    seats: names.map((name, s) => ({ seat: s, name, connected: true, side: rules.sideOf(s) })),
    you: { seat, playerId: `p${seat}`, autoPass: false },
    matchNumber: 1,
    clock: game.turn === null ? null : { kind: 'turn', seat: game.turn, deadline: Date.now() + 40_000 },
    game: JSON.parse(JSON.stringify(game)) as TableView['game'],
  };
}

/**
 * Serves the built page and a fake gateway socket; `push` sends the next view, `sent` lists the
 * frames the page sent, `drop` closes the socket and refuses new ones until `restore`.
 */
export async function galleryPage(page: Page, first: TableView) {
  await page.addInitScript(() => {
    localStorage.setItem(
      'dominoes.identity',
      JSON.stringify({ token: 'gallery', playerId: 'p0', name: 'Ana' }),
    );
    localStorage.setItem('dominoes.lang', 'en');
  });
  await page.route(`${GALLERY_ORIGIN}/**`, async (route) => {
    const path = new URL(route.request().url()).pathname;
    const file =
      path.startsWith('/assets/') || path === '/favicon.svg' ? join(DIST, path) : join(DIST, 'index.html');
    await route.fulfill({ path: file });
  });
  let version = 1;
  let current = first;
  const sockets: { send(message: string): void; close(): Promise<void> }[] = [];
  const sent: { type: string; [field: string]: unknown }[] = [];
  let refusing = false;
  await page.routeWebSocket(/\/ws$/, (ws) => {
    if (refusing) {
      void ws.close();
      return;
    }
    sockets.push(ws);
    ws.onClose(() => {
      const i = sockets.indexOf(ws);
      if (i >= 0) sockets.splice(i, 1);
    });
    ws.onMessage((raw) => {
      const frame = JSON.parse(String(raw)) as { type: string; id?: string };
      sent.push(frame);
      const now = Date.now();
      if (frame.type === 'hello')
        ws.send(JSON.stringify({ type: 'welcome', playerId: 'p0', name: 'Ana', serverTime: now }));
      else if (frame.type === 'ping')
        ws.send(JSON.stringify({ type: 'pong', id: frame.id ?? null, serverTime: now }));
      else if (frame.id) {
        ws.send(JSON.stringify({ type: 'ack', id: frame.id, version }));
        ws.send(JSON.stringify({ type: 'view', version, serverTime: now, view: current }));
      }
    });
  });
  await page.goto(`${GALLERY_ORIGIN}/t/${GALLERY_TABLE}`);
  return {
    sent,
    async drop() {
      refusing = true;
      for (const ws of sockets.splice(0)) await ws.close();
    },
    restore() {
      refusing = false;
    },
    push(view: TableView) {
      version += 1;
      current = view;
      for (const ws of sockets)
        ws.send(JSON.stringify({ type: 'view', version, serverTime: Date.now(), view }));
      return version;
    },
  };
}
