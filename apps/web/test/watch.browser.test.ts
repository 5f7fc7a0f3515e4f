/**
 * Watching a table in Chromium (issue 12, decision 0018): two spectators (a desktop and a phone) open
 * `/t/<code>?watch=1` while four players play a round to its reveal. Every frame the spectators'
 * pages receive is checked for hidden tiles (P10, P12) against the stored deal; the page shows no
 * hand and no control; the players see how many watch. Screenshots at 1440x900 and 390x844.
 */
import type { ServerMessage, SpectatorView } from '@dominoes/protocol';
import { autoplay } from '../../../e2e/src/autoplay';
import { leakedTilesToSpectator } from '../../../e2e/src/hidden-tiles';
import { seatPlayers } from '../../../e2e/src/players';
import { readLog } from '../../../e2e/src/stored-log';
import { TestSystem } from '../../../e2e/src/system';
import { watchPath } from '../src/watch';
import { BrowserPlayer, DESKTOP, PHONE, until } from './browser-players';
import { browserSuite, expectShotsLaidOut } from './support/browser-suite';

const suite = browserSuite(() =>
  TestSystem.start('web-watch', { turnMs: 4_000, disconnectedTurnMs: 2_000, breakMs: 60_000 }),
);

/** Every frame a page's sockets receive, parsed. */
function recordFrames(spectator: BrowserPlayer): ServerMessage[] {
  const frames: ServerMessage[] = [];
  spectator.page.on('websocket', (ws) =>
    ws.on('framereceived', ({ payload }) => {
      try {
        frames.push(JSON.parse(String(payload)) as ServerMessage);
      } catch {
        // not JSON
      }
    }),
  );
  return frames;
}

describe('watching a table in Chromium', () => {
  it('a desktop and a phone spectator watch a round to its reveal: no hidden tile in any frame, no hand, no control; the players see 2 watching', async () => {
    const { players, tableId } = await seatPlayers(suite.system, ['Ana', 'Bo', 'Cy', 'Di'], {
      variant: 'partnership',
      target: 150,
    });
    await players[0]!.client.waitForView((v) => v.status === 'playing');
    const spectators = await Promise.all([
      BrowserPlayer.open(suite.browser, 'Eve', DESKTOP, 'click'),
      BrowserPlayer.open(suite.browser, 'Fay', PHONE, 'tap'),
    ]);
    const frames = spectators.map(recordFrames);
    for (const s of spectators) {
      await s.page.goto(`${suite.system.httpUrl}${watchPath(tableId)}`);
      await s.enterName();
      await until(`${s.name} sees the table`, () => s.page.getByTestId('game').isVisible());
    }
    await players[0]!.client.waitForView((v) => v.watchers === 2);

    const round = autoplay(players, 41, (v) => v.game?.roundResult != null, {
      cutBreaks: false,
      thinkMs: 500,
    });
    for (const s of spectators) {
      await until(
        `${s.name} sees tiles on the board`,
        async () => (await s.page.locator('[data-testid="board"] [data-placement]').count()) >= 3,
        30_000,
      );
      // A spectator has no hand and no control, and is told so; the players' count shows.
      expect(await s.page.getByTestId('hand').count()).toBe(0);
      expect(await s.page.getByTestId('pass').count()).toBe(0);
      expect(await s.page.getByTestId('autopass').count()).toBe(0);
      expect(await s.page.getByTestId('watching-note').isVisible()).toBe(true);
      expect(await s.page.getByTestId('watchers').textContent()).toContain('2 watching');
      await expectShotsLaidOut('watch', 'mid-round', [s]);
    }
    const revealed = await round;
    for (const s of spectators) {
      await until(
        `${s.name} sees the round result`,
        () => s.page.getByTestId('round-result').isVisible(),
        30_000,
      );
      const hands = s.page.getByTestId('revealed-hand');
      expect(await hands.count()).toBe(4);
      for (let seat = 0; seat < 4; seat++) {
        const shown = s.page.locator(`[data-testid="revealed-hand"][data-seat="${seat}"]`);
        expect(Number(await shown.getAttribute('data-count'))).toBe(
          revealed.game!.roundResult!.finalHands[seat]!.length,
        );
      }
      // Nobody here is "you", and a spectator starts no round.
      expect(await s.page.getByTestId('start-now').count()).toBe(0);
      expect(await s.page.getByTestId('round-result').textContent()).not.toContain('(you)');
      await s.shot('watch', 'reveal');
      expect(s.errors).toEqual([]);
    }

    // Every frame either page received: spectator views only, none holding a hidden tile.
    const log = await readLog(suite.system.stores.databaseUrl, tableId);
    for (const [i, received] of frames.entries()) {
      const views = received.flatMap((f) => (f.type === 'watchView' ? [f.view as SpectatorView] : []));
      expect(views.length).toBeGreaterThan(10);
      expect(received.filter((f) => f.type === 'view')).toEqual([]);
      for (const view of views)
        expect({ page: i, leaked: leakedTilesToSpectator(view, log) }).toEqual({ page: i, leaked: [] });
      expect(views.some((v) => v.game?.roundResult != null)).toBe(true);
    }

    // One spectator leaves: the players see 1.
    await spectators[1]!.close();
    await players[0]!.client.waitForView((v) => v.watchers === 1);
    await spectators[0]!.close();
    for (const p of players) p.close();
  });
});
