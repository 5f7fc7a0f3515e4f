/**
 * Talking at a table in Chromium (issue 12, decision 0020): two browsers in two languages on two
 * gateways (the real table-service and gateways, in-process, on real Postgres and Redis). A quick
 * phrase is shown in each reader's language, a reaction appears by the sender's seat, an HTML
 * payload stays text, and a mute is the reader's own and survives a reload. Screenshots:
 * test-artifacts/screenshots/chat-<step>-<viewport>.png.
 */
import { InProcessSystem } from '../../../e2e/src/in-process';
import { watchPath } from '../src/watch';
import { BrowserPlayer, DESKTOP, PHONE, layoutProblems, until } from './browser-players';
import { browserSuite } from './support/browser-suite';

const suite = browserSuite(() => InProcessSystem.start('web_chat', { gateways: 2 }));

const S = 'chat';

/**
 * Screenshots each page and checks its layout (layoutProblems). Elements past the screen's edge are
 * named: the page header's (not this suite's part: the language switch and the header’s links, and the page-wide banner slot they widen) are
 * reported apart, so that a wider header does not hide a problem of the chat.
 */
async function shot(players: BrowserPlayer[], step: string): Promise<void> {
  for (const p of players) {
    await p.shot(S, step);
    const outside = await p.page.evaluate(() =>
      [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
        .filter((e) => !e.closest('.app-header, .connection-slot'))
        // Inside a scroller that is itself on the screen (the phone's row of phrases): not off the page.
        .filter((e) => {
          for (let a = e.parentElement; a; a = a.parentElement)
            if (getComputedStyle(a).overflowX !== 'visible')
              return a.getBoundingClientRect().right > document.documentElement.clientWidth + 1;
          return true;
        })
        .map((e) => `${e.tagName.toLowerCase()}.${e.className}`),
    );
    const problems = (await layoutProblems(p.page)).filter((line) => !line.startsWith('page is '));
    expect({ player: p.name, step, problems, outside }).toEqual({
      player: p.name,
      step,
      problems: [],
      outside: [],
    });
  }
}

/**
 * The host opens a two-seat draw game on gateway `from`, text chat on or off (on by default), the guest
 * comes by its link on gateway `to`; resolves once both pages show the table.
 */
async function twoAtATable(
  host: BrowserPlayer,
  guest: BrowserPlayer,
  from: number,
  to: number,
  chat: boolean,
  beforeOpen?: () => Promise<void>,
): Promise<string> {
  await host.page.goto(suite.system.httpUrl(from));
  await host.enterName();
  await host.page.getByTestId('open-form').waitFor();
  const option = host.page.getByTestId('chat-option');
  expect(await option.isChecked()).toBe(true);
  await host.page.locator('input[name="variant"][value="draw"]').check();
  await host.page.getByTestId('seats-select').selectOption('2');
  if (!chat) await option.uncheck();
  await beforeOpen?.();
  await host.page.getByTestId('open-table').click();
  const code = await until(
    'the code',
    async () => (await host.page.getByTestId('table-code').textContent()) || null,
  );
  await guest.page.goto(`${suite.system.httpUrl(to)}/t/${code}`);
  await guest.enterName();
  for (const p of [host, guest]) await p.page.getByTestId('game').waitFor({ timeout: 20_000 });
  return code;
}

const texts = (p: BrowserPlayer) => p.page.getByTestId('chat-text').allTextContents();

describe('the table chat in the browser', () => {
  it('a phrase arrives translated in another language, a reaction by the sender’s seat, HTML stays text, a mute is remembered', async () => {
    const hana = await BrowserPlayer.open(suite.browser, 'Hana', DESKTOP, 'click', 'en-US');
    const eleni = await BrowserPlayer.open(suite.browser, 'Eleni', PHONE, 'tap', 'el-GR');
    try {
      // Hana opens a two-seat draw game on gateway 0, text chat left on.
      // Hana opens a two-seat draw game on gateway 0, text chat left on; Eleni (Greek, a phone) comes by
      // the link, on gateway 1.
      await twoAtATable(hana, eleni, 0, 1, true);
      expect(await eleni.page.evaluate(() => document.documentElement.lang)).toBe('el');

      // Hana says "Good game!": Eleni's closed panel counts it, and shows it in Greek.
      await hana.page.getByTestId('chat-phrases-toggle').click();
      await hana.page.getByTestId('phrase-goodGame').click();
      await until('Hana sees her phrase', async () => (await texts(hana)).includes('Good game!'));
      await eleni.page.getByTestId('chat-unread').waitFor();
      expect(await eleni.page.getByTestId('chat-unread').textContent()).toBe('1 νέο μήνυμα');
      // On the phone the chat sits below the hand, closed: scrolled to for the screenshot.
      await eleni.page.getByTestId('chat').scrollIntoViewIfNeeded();
      await shot([eleni], '01-unread');
      await eleni.page.getByTestId('chat-toggle').tap();
      await until('Eleni reads it in Greek', async () => (await texts(eleni)).includes('Καλό παιχνίδι!'));
      expect(await texts(eleni)).not.toContain('Good game!');
      expect(await eleni.page.getByTestId('chat-name').first().textContent()).toBe('Hana');

      // Eleni types a text that is HTML: it arrives as the same text, no element, no script run.
      const html = '<img src=x onerror="window.__chatXss=1"><b>bold</b><script>window.__chatXss=2</script>';
      await eleni.page.getByTestId('chat-input').fill(html);
      await eleni.page.getByTestId('chat-send').tap();
      await until('Hana sees the text', async () => (await texts(hana)).includes(html));
      for (const p of [hana, eleni]) {
        expect(
          await p.page.evaluate(() => ({
            elements: document.querySelectorAll(
              '[data-testid="chat-log"] img, [data-testid="chat-log"] b, [data-testid="chat-log"] script',
            ).length,
            xss: (window as unknown as { __chatXss?: number }).__chatXss ?? null,
          })),
        ).toEqual({ elements: 0, xss: null });
      }

      // Reactions: shown briefly by the sender's seat on the other page.
      await hana.page.getByTestId('react-clap').click();
      await eleni.page.getByTestId('react-heart').tap();
      const hanaSeat = hana.seat;
      const eleniSeat = eleni.seat;
      const byHana = eleni.page.locator(`[data-seat="${hanaSeat}"] [data-testid="seat-reaction"]`);
      const byEleni = hana.page.locator(`[data-seat="${eleniSeat}"] [data-testid="seat-reaction"]`);
      await byHana.waitFor({ timeout: 5_000 });
      await byEleni.waitFor({ timeout: 5_000 });
      expect(await byHana.textContent()).toBe('👏');
      expect(await byEleni.textContent()).toBe('❤️');
      // The sender sees it by their own seat too.
      expect(await hana.page.locator('.my-area [data-testid="seat-reaction"]').textContent()).toBe('👏');
      expect(await byHana.getAttribute('aria-label')).toBe('αντέδρασε: χειροκρότημα');
      await eleni.page.getByTestId('chat').scrollIntoViewIfNeeded();
      await shot([hana, eleni], '02-talk');
      // ...and only briefly.
      await byHana.waitFor({ state: 'detached', timeout: 8_000 });

      // Hana mutes Eleni: her messages are hidden on Hana's page only, and stay hidden after a reload.
      await hana.page
        .getByTestId('chat-message')
        .filter({ hasText: 'bold' })
        .getByTestId('chat-mute')
        .click();
      await until('Eleni is muted', async () => !(await texts(hana)).includes(html));
      await hana.page.getByTestId('chat-muted').waitFor();
      expect(await texts(eleni)).toContain(html);
      await hana.page.reload();
      await hana.page.getByTestId('game').waitFor({ timeout: 20_000 });
      await until('the recent chat after the reload', async () => (await texts(hana)).includes('Good game!'));
      expect(await texts(hana)).not.toContain(html);
      await hana.page.getByTestId('chat-muted').waitFor();
      await shot([hana], '03-muted-after-reload');
      expect([...hana.errors, ...eleni.errors]).toEqual([]);
    } finally {
      await hana.close();
      await eleni.close();
    }
  });

  it('the host turns text chat off: no input on either page, the note says so; phrases still cross from Arabic to Bulgarian and back, and a spectator reads them in English without writing', async () => {
    const amal = await BrowserPlayer.open(suite.browser, 'Amal', DESKTOP, 'click', 'ar-EG');
    const boyan = await BrowserPlayer.open(suite.browser, 'Boyan', PHONE, 'tap', 'bg-BG');
    const sam = await BrowserPlayer.open(suite.browser, 'Sam', DESKTOP, 'click', 'en-GB');
    try {
      const code = await twoAtATable(amal, boyan, 1, 0, false, () => shot([amal], '04-open-chat-off'));
      // Sam (English) watches on gateway 0 (decision 0018): the chat is read, not written.
      await sam.page.goto(`${suite.system.httpUrl(0)}${watchPath(code)}`);
      await sam.enterName();
      await sam.page.getByTestId('game').waitFor({ timeout: 20_000 });
      await sam.page.getByTestId('chat-spectator').waitFor();
      expect(await sam.page.getByTestId('chat-phrases-toggle').count()).toBe(0);
      expect(await sam.page.getByTestId('chat-input').count()).toBe(0);
      await boyan.page.getByTestId('chat-toggle').tap();
      for (const p of [amal, boyan]) {
        await p.page.getByTestId('chat-off').waitFor();
        expect(await p.page.getByTestId('chat-input').count()).toBe(0);
      }
      await amal.page.getByTestId('chat-phrases-toggle').click();
      await amal.page.getByTestId('phrase-hurryUp').click();
      await until('Boyan reads it in Bulgarian', async () =>
        (await texts(boyan)).includes('Побързай, моля!'),
      );
      await boyan.page.getByTestId('chat-phrases-toggle').tap();
      await boyan.page.getByTestId('phrase-oneMoment').tap();
      await until('Amal reads it in Arabic', async () => (await texts(amal)).includes('لحظة من فضلك…'));
      await until('the spectator reads both in English', async () => {
        const all = await texts(sam);
        return ['Hurry up, please!', 'One moment…'].every((text) => all.includes(text));
      });
      expect(await amal.page.evaluate(() => document.documentElement.dir)).toBe('rtl');
      await boyan.page.getByTestId('chat').scrollIntoViewIfNeeded();
      await shot([amal, boyan, sam], '05-chat-off');
      expect([...amal.errors, ...boyan.errors, ...sam.errors]).toEqual([]);
    } finally {
      await amal.close();
      await boyan.close();
      await sam.close();
    }
  });
});
