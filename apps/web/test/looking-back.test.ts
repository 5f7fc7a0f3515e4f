/**
 * "Looking back" in a real browser (issue 12): a match played to its end through the real services
 * (the e2e autoplay, one seat left to the clock so that the table's deadline moves are in the log),
 * then "Your matches" lists it and the replay page steps through every move of every round, forward
 * and back, with every hand shown, to the match row's final scores. Screenshots at 1440x900 and 390x844.
 */
import type { Page } from 'playwright-core';
import { autoplay } from '../../../e2e/src/autoplay';
import { seatPlayers } from '../../../e2e/src/players';
import { readLog, storedMatchScores } from '../../../e2e/src/stored-log';
import { TestSystem } from '../../../e2e/src/system';
import { BrowserPlayer, DESKTOP, PHONE, layoutProblems } from './browser-players';
import { browserSuite } from './support/browser-suite';

const suite = browserSuite(
  () => TestSystem.start('web-history', { turnMs: 700, disconnectedTurnMs: 700, breakMs: 1_000 }),
  240_000,
);

const stepOf = async (page: Page) => {
  const el = page.getByTestId('replay-step');
  return {
    step: Number(await el.getAttribute('data-step')),
    steps: Number(await el.getAttribute('data-steps')),
    round: Number(await el.getAttribute('data-round')),
    move: Number(await el.getAttribute('data-move')),
  };
};

const seatTiles = (page: Page, seats: number) =>
  Promise.all(
    Array.from({ length: seats }, (_, s) =>
      page.getByTestId(`replay-seat-${s}`).getAttribute('data-tiles').then(Number),
    ),
  );

/** Layout problems but the table's height: the replay page scrolls on a phone, its controls included. */
const problems = async (page: Page) =>
  (await layoutProblems(page)).filter((p) => !p.startsWith('the table ends at'));

describe('looking back in Chromium', () => {
  it('a match played through the real services: “Your matches” lists it; the replay steps through every move forward and back, every hand shown, ⏱ marked, to the match row’s scores; a match in play is refused', async () => {
    const { players, tableId } = await seatPlayers(suite.system, ['Ana', 'Boris', 'Cem', 'Dara'], {
      variant: 'partnership',
      target: 50,
    });
    await players[0]!.client.waitForView((v) => v.status === 'playing');
    // Dara never moves: the table plays her turns at the deadline (P16), marked ⏱ in the replay.
    await autoplay(players.slice(0, 3), 21, (v) => v.game?.phase === 'over', { timeoutMs: 240_000 });
    const [row] = await storedMatchScores(suite.system.stores.databaseUrl, tableId);
    const log = await readLog(suite.system.stores.databaseUrl, tableId);
    const rounds = log.filter((r) => r.kind === 'round-dealt').length;
    const moves = log.filter((r) => r.kind === 'action').length;
    const deadlineMoves = log.filter((r) => r.kind === 'action' && r.payload['by'] === 'deadline').length;
    expect(deadlineMoves).toBeGreaterThan(0);
    const ana = players[0]!;
    const identity = JSON.stringify({ token: ana.token, playerId: ana.playerId, name: ana.name });
    const desktop = await BrowserPlayer.open(suite.browser, 'Ana', DESKTOP, 'click');
    const phone = await BrowserPlayer.open(suite.browser, 'Ana', PHONE, 'tap');
    try {
      for (const p of [desktop, phone])
        await p.context.addInitScript((value) => localStorage.setItem('dominoes.identity', value), identity);

      // "Your matches": the match, Ana's partner and opponents, the result.
      for (const p of [desktop, phone]) {
        await p.page.goto(`${suite.system.httpUrl}/`);
        await p.page.getByTestId('your-matches').click();
        await p.page.getByTestId('match-list').waitFor();
        const rows = p.page.getByTestId('match-row');
        expect(await rows.count()).toBe(1);
        expect(await rows.first().getAttribute('data-match')).toBe(`${tableId}-1`);
        expect(await rows.first().textContent()).toContain('Cem');
        expect(await p.page.getByTestId('match-outcome').textContent()).toBe(
          row!.winner_side === 0 ? 'Won' : 'Lost',
        );
        expect(await problems(p.page)).toEqual([]);
        await p.shot('looking-back', '01-your-matches');
      }

      // The replay, on the desktop with the keyboard and the buttons.
      const page = desktop.page;
      await page.getByTestId('open-replay').click();
      await page.getByTestId('replay').waitFor();
      expect(new URL(page.url()).pathname).toBe(`/replay/${tableId}-1`);
      let at = await stepOf(page);
      expect(at).toMatchObject({ step: 0, round: 0, move: 0 });
      expect(at.steps).toBe(rounds + moves);
      expect(await seatTiles(page, 4)).toEqual([7, 7, 7, 7]);
      await desktop.shot('looking-back', '02-replay-deal');
      expect(await problems(page)).toEqual([]);

      // Forward through every move of every round: one step each, the hands shrinking as tiles are laid.
      let seenDeadline = 0;
      let tiles = 28;
      for (let i = 1; i < at.steps; i++) {
        if (i % 2 === 0) await page.keyboard.press('ArrowRight');
        else await page.getByTestId('replay-forward').click();
        const now = await stepOf(page);
        expect(now.step).toBe(i);
        const held = (await seatTiles(page, 4)).reduce((a, b) => a + b, 0);
        if (now.move === 0) expect(held).toBe(28);
        else expect(held).toBeLessThanOrEqual(tiles);
        tiles = held;
        if ((await page.getByTestId('replay-move-now').getAttribute('data-by')) === 'deadline') {
          seenDeadline++;
          expect(await page.getByTestId('replay-move-now').textContent()).toContain('⏱');
        }
        if (i === Math.floor(at.steps / 2)) await desktop.shot('looking-back', '03-replay-middle');
      }
      expect(seenDeadline).toBe(deadlineMoves);
      expect(await page.getByTestId('replay-forward').isDisabled()).toBe(true);
      // The end: the page's own replay (libs/rules in the page) ends at the match row's scores.
      expect(await page.getByTestId('replay-final-scores').getAttribute('data-scores')).toBe(
        (row!.scores ?? []).join(','),
      );
      expect(await page.getByTestId('replay-score-row').count()).toBe(rounds);
      // The last move is in sight in the round's list (the list scrolled to it).
      const inSight = await page.evaluate(() => {
        const list = document.querySelector('[data-testid="replay-moves"]')!.getBoundingClientRect();
        const now = document
          .querySelector('[data-testid="replay-move"][aria-current="step"]')!
          .getBoundingClientRect();
        return now.top >= list.top - 1 && now.bottom <= list.bottom + 1;
      });
      expect(inSight).toBe(true);
      await desktop.shot('looking-back', '04-replay-end');
      expect(await problems(page)).toEqual([]);

      // And back: the arrow, the button, Home.
      await page.keyboard.press('ArrowLeft');
      expect((await stepOf(page)).step).toBe(at.steps - 2);
      await page.getByTestId('replay-back').click();
      expect((await stepOf(page)).step).toBe(at.steps - 3);
      await page.keyboard.press('Home');
      at = await stepOf(page);
      expect(at.step).toBe(0);
      expect(await seatTiles(page, 4)).toEqual([7, 7, 7, 7]);

      // The phone: the same replay by its shareable URL, tapped forward; then in Arabic.
      await phone.page.goto(`${suite.system.httpUrl}/replay/${tableId}-1`);
      await phone.page
        .getByTestId('replay')
        .waitFor()
        .catch(async (error: unknown) => {
          await phone.shot('looking-back', '99-phone-failed');
          throw new Error(
            `${String(error)}: ${await phone.page.locator('body').innerText()} ${phone.errors.join('; ')}`,
          );
        });
      for (let i = 0; i < 6; i++) await phone.page.getByTestId('replay-forward').tap();
      expect((await stepOf(phone.page)).step).toBe(6);
      expect(await problems(phone.page)).toEqual([]);
      await phone.shot('looking-back', '02-replay-moves');
      await phone.page.getByTestId('lang').selectOption('ar');
      await phone.page.keyboard.press('End');
      expect(await phone.page.getByTestId('replay-final-scores').getAttribute('data-scores')).toBe(
        (row!.scores ?? []).join(','),
      );
      await phone.shot('looking-back', '04-replay-end-ar');

      // A match in play (another table, just started): refused, nothing of it shown (its hands are live).
      const other = await seatPlayers(suite.system, ['Eli', 'Fox', 'Gil', 'Hed'], { variant: 'partnership' });
      await other.players[0]!.client.waitForView((v) => v.status === 'playing');
      await page.goto(`${suite.system.httpUrl}/replay/${other.tableId}-1`);
      await page.getByTestId('replay-problem').waitFor();
      expect(await page.getByTestId('replay-problem').textContent()).toMatch(/still being played/);
      expect(await page.locator('[data-testid^="replay-seat-"]').count()).toBe(0);
      await page.goto(`${suite.system.httpUrl}/replay/not-a-match`);
      expect(await page.getByTestId('replay-problem').textContent()).toBe('This is not a match id.');
      await desktop.shot('looking-back', '05-replay-refused');
      for (const p of other.players) p.close();
      expect([...desktop.errors, ...phone.errors]).toEqual([]);
    } finally {
      await desktop.close();
      await phone.close();
      for (const p of players) p.close();
    }
  });
});
