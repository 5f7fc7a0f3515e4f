/**
 * Finding a game in Chromium (issue 12, decision 0019): the whole system as processes with two
 * gateways, on real Postgres and Redis. Two browsers find each other through the live lobby (a public
 * table appears on the other browser's lobby without a reload, one click takes its free seat), two
 * more through quick play pressed at the same moment on two gateways; each table starts and a move
 * is made; "your tables" leads back; a private table is never listed. Screenshots:
 * test-artifacts/screenshots/lobby-<step>-<viewport>.png at 1440x900 and 390x844.
 */
import { TestSystem } from '../../../e2e/src/system';
import { BrowserPlayer, DESKTOP, PHONE, until, type Viewport } from './browser-players';
import { browserSuite, expectShotsLaidOut } from './support/browser-suite';

const suite = browserSuite(() => TestSystem.start('web_lobby', { replicas: { gateway: 2 }, turnMs: 60_000 }));

const S = 'lobby';

/** A screenshot of each page, whose layout must have no problem (nothing off the screen or overlapping). */
const shot = (step: string, ...players: BrowserPlayer[]) => expectShotsLaidOut(S, step, players);

/** A browser on gateway `gateway`'s page, with a name. */
async function arrive(
  name: string,
  viewport: Viewport,
  gateway: number,
  locale = 'en-US',
): Promise<BrowserPlayer> {
  const p = await BrowserPlayer.open(
    suite.browser,
    name,
    viewport,
    viewport === PHONE ? 'tap' : 'click',
    locale,
  );
  await p.page.goto(suite.system.gatewayUrl(gateway));
  await p.enterName();
  await p.page.locator('[data-testid="lobby-status"][data-state="live"]').waitFor();
  return p;
}

const codeOf = (p: BrowserPlayer): string | null => /\/t\/([A-Z0-9]{12})/.exec(p.page.url())?.[1] ?? null;

/** Waits until both see the same started table, then the player whose turn it is plays a tile through the page. */
async function startedAndMoved(players: BrowserPlayer[], tableId: string): Promise<void> {
  await until('the match started for everyone', async () =>
    players.every((p) => p.view?.tableId === tableId && p.view.status === 'playing' && p.view.game !== null),
  );
  const mover = await until('a player whose turn it is', async () =>
    players.find((p) => p.view?.game?.turn === p.seat && p.legalTiles().length > 0),
  );
  const tile = mover.legalTiles()[0]!;
  await mover.press(mover.page.locator(`[data-testid="hand-tile"][data-tile="${tile}"]`));
  await until('the move reached every player', async () =>
    players.every((p) => (p.view?.game?.board.placements.length ?? 0) >= 1),
  );
}

describe('finding a game in Chromium (issue 12)', () => {
  it('two browsers on two gateways find each other through the live lobby and through quick play, and play; your tables lead back; a private table is never listed', async () => {
    const ana = await arrive('Ana', DESKTOP, 0);
    const bo = await arrive('Bo', PHONE, 1);
    await shot('empty', ana);
    await shot('empty', bo);
    expect(ana.errors).toEqual([]);

    // Ana opens a private table first: nobody else's lobby ever lists it.
    await ana.page.locator('input[name="variant"][value="draw"]').check();
    await ana.page.getByTestId('seats-select').selectOption('2');
    await expect(ana.page.getByTestId('visibility-private').isChecked()).resolves.toBe(true);
    await ana.page.getByTestId('open-table').click();
    const privateId = await until('the private table opened', async () => codeOf(ana));
    await ana.page.goto(suite.system.gatewayUrl(0));
    await ana.page.getByTestId('find-game').waitFor();
    // It is Ana's own: under "your tables", marked private.
    await ana.page.locator(`[data-testid="your-tables"] [data-table="${privateId}"]`).waitFor();

    // Then a public one.
    await ana.page.locator('input[name="variant"][value="draw"]').check();
    await ana.page.getByTestId('seats-select').selectOption('2');
    await ana.page.getByTestId('visibility-public').check();
    await shot('open-public', ana);
    await ana.page.getByTestId('open-table').click();
    const publicId = await until('the public table opened', async () => {
      const code = codeOf(ana);
      return code !== privateId ? code : null;
    });

    // Bo's lobby (the other gateway) shows it without a reload: host, seats, a free seat.
    const row = bo.page.locator(`[data-testid="open-tables"] [data-table="${publicId}"]`);
    await row.waitFor({ timeout: 10_000 });
    expect(await row.textContent()).toContain('Ana');
    expect(await row.textContent()).toContain('1 of 2 seats taken');
    expect(await bo.page.locator(`[data-table="${privateId}"]`).count()).toBe(0);
    await shot('table-listed', bo);
    await bo.press(row.getByTestId('lobby-join'));
    await until('Bo sits at the table', async () => codeOf(bo) === publicId && bo.view?.tableId === publicId);
    await startedAndMoved([ana, bo], publicId);
    await shot('lobby-game', ana);
    await shot('lobby-game', bo);

    // Quick play: two more browsers (Bulgarian, Arabic) press at the same moment, on two gateways.
    const cy = await arrive('Cy', DESKTOP, 1, 'bg-BG');
    const di = await arrive('Di', PHONE, 0, 'ar-EG');
    // Ana and Bo's table is in play now: listed to watch, with the table's link.
    const watching = cy.page.locator(`[data-testid="tables-in-play"] [data-table="${publicId}"]`);
    await watching.waitFor();
    expect(await watching.getByTestId('lobby-watch').getAttribute('href')).toBe(`/t/${publicId}?watch=1`);
    for (const p of [cy, di]) {
      await p.page.getByTestId('quick-variant').selectOption('draw');
      await p.page.getByTestId('quick-seats').selectOption('2');
    }
    await shot('quick-play', cy);
    await shot('quick-play', di);
    await Promise.all([cy, di].map((p) => p.page.getByTestId('quick-play-go').click()));
    const quickId = await until('both are at one table', async () => {
      const [a, b] = [codeOf(cy), codeOf(di)];
      return a !== null && a === b ? a : null;
    });
    expect(quickId).not.toBe(publicId);
    await startedAndMoved([cy, di], quickId);
    await shot('quick-game', cy);
    await shot('quick-game', di);

    // A Greek phone watches Ana and Bo's table from the lobby's "In play" list (the watching page, decision 0018).
    const eve = await arrive('Eve', PHONE, 1, 'el-GR');
    const toWatch = eve.page.locator(`[data-testid="tables-in-play"] [data-table="${publicId}"]`);
    await toWatch.waitFor();
    await shot('in-play', eve);
    await eve.press(toWatch.getByTestId('lobby-watch'));
    await until('Eve watches the table', async () => eve.page.url().endsWith(`/t/${publicId}?watch=1`));
    await eve.page.getByTestId('watching-note').waitFor();
    await eve.shot(S, 'watching');

    // Back to your table: Ana goes to the lobby, finds her table there, and returns to her seat.
    await ana.page.goto(suite.system.gatewayUrl(0));
    const mine = ana.page.locator(`[data-testid="your-tables"] [data-table="${publicId}"]`);
    await mine.waitFor();
    await ana.page.locator(`[data-testid="tables-in-play"] [data-table="${quickId}"]`).waitFor();
    await shot('your-tables', ana);
    await mine.getByTestId('lobby-back').click();
    await until(
      'Ana is back at her seat',
      async () => codeOf(ana) === publicId && ana.view?.status === 'playing',
    );
    await ana.page.getByTestId('hand-tile').first().waitFor();
    await bo.page.goto(suite.system.gatewayUrl(1));
    await bo.page.locator(`[data-testid="your-tables"] [data-table="${publicId}"]`).waitFor();
    await shot('your-tables', bo);
    expect(await bo.page.locator(`[data-table="${privateId}"]`).count()).toBe(0);

    for (const p of [ana, bo, cy, di])
      expect({ name: p.name, errors: p.errors }).toEqual({ name: p.name, errors: [] });
    for (const p of [ana, bo, cy, di, eve]) await p.close();
  });
});
