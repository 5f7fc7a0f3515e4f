import { signToken, verifyToken } from '../src/auth/tokens';
import type { GatewayApp } from '../src/gateway-app';
import {
  FakeTableService,
  identity,
  RawSocket,
  sleep,
  startTestGateway,
  testConfig,
  uniquePrefix,
} from './support';

const SECRET = 'unit-test-secret-0123456789abcdef';
const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);
const player = { pid: '6f1c2a8e-0d1b-4c55-9a3e-2b7d9f0e1a22', name: 'Ana' };
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Every single-bit change of the signature's 32 bytes, at every position, re-encoded canonically. */
function bitFlips(signature: string): string[] {
  const out: string[] = [];
  const bytes = Buffer.from(signature, 'base64url');
  for (let i = 0; i < bytes.length; i++)
    for (let bit = 0; bit < 8; bit++) {
      const altered = Buffer.from(bytes);
      altered[i] = altered[i]! ^ (1 << bit);
      out.push(altered.toString('base64url'));
    }
  return out;
}

/**
 * Token signatures truncated or altered in their bytes (issue 15: the other tests change only the
 * body or the secret, or one byte): every such token is refused, by verifyToken and by the gateway
 * at both doors (the socket's hello and the HTTP API's bearer token), and none gets anything done.
 */
describe('token signatures truncated or altered in their bytes', () => {
  const token = signToken(player, SECRET, NOW);
  const [body, signature] = token.split('.') as [string, string];
  const refused = (t: string) => verifyToken(t, SECRET, NOW);
  const isInvalid = (t: string) => {
    const check = refused(t);
    return !check.ok && check.code === 'TOKEN_INVALID';
  };

  it('the untouched token verifies (so every refusal below is about the alteration)', () => {
    expect(refused(token)).toMatchObject({ ok: true, claims: { pid: player.pid } });
  });

  it('every truncation of the signature, from 42 characters down to 0, is TOKEN_INVALID', () => {
    const cut = Array.from({ length: signature.length }, (_, n) => `${body}.${signature.slice(0, n)}`);
    expect(cut.filter((t) => !isInvalid(t))).toEqual([]);
  });

  it('the signature cut short in bytes (31, 16, 1 bytes of the 32) and re-encoded is TOKEN_INVALID', () => {
    const bytes = Buffer.from(signature, 'base64url');
    for (const n of [31, 16, 1])
      expect(refused(`${body}.${bytes.subarray(0, n).toString('base64url')}`)).toMatchObject({
        ok: false,
        code: 'TOKEN_INVALID',
      });
  });

  it('every one of the 256 single-bit changes of the signature bytes (first, middle and last byte included) is TOKEN_INVALID', () => {
    const flips = bitFlips(signature);
    expect(flips).toHaveLength(256);
    expect(flips.every((altered) => altered.length === 43)).toBe(true);
    expect(flips.filter((altered) => !isInvalid(`${body}.${altered}`))).toEqual([]);
  });

  it('every other character at every position of the signature is TOKEN_INVALID', () => {
    const altered: string[] = [];
    for (let i = 0; i < signature.length; i++)
      for (const c of ALPHABET)
        if (c !== signature[i]) altered.push(`${signature.slice(0, i)}${c}${signature.slice(i + 1)}`);
    expect(altered).toHaveLength(43 * 63);
    expect(altered.filter((a) => !isInvalid(`${body}.${a}`))).toEqual([]);
  });

  it('a correctly signed token whose exp equals its iat is TOKEN_INVALID (exp must be after iat; found by the mutation run)', () => {
    const { createHmac } = jest.requireActual<typeof import('node:crypto')>('node:crypto');
    const iat = NOW / 1000 - 10;
    const claims = Buffer.from(JSON.stringify({ ...player, iat, exp: iat })).toString('base64url');
    const signed = `${claims}.${createHmac('sha256', SECRET).update(claims).digest('base64url')}`;
    // Checked before the clock: the same token read at its issue instant is refused the same way.
    expect(verifyToken(signed, SECRET, iat * 1000 - 1)).toMatchObject({ ok: false, code: 'TOKEN_INVALID' });
  });

  it("the signature of another body (another player's token) is TOKEN_INVALID on this body", () => {
    const other = signToken({ pid: '0b8e9c1d-2f3a-4b5c-8d7e-6f5a4b3c2d1e', name: 'Bruno' }, SECRET, NOW);
    expect(refused(`${body}.${other.split('.')[1]}`)).toMatchObject({ ok: false, code: 'TOKEN_INVALID' });
  });

  describe('at the gateway', () => {
    const prefix = uniquePrefix('gw_token_bytes');
    let gateway: GatewayApp;
    let fake: FakeTableService;
    let issued: string;
    let base: string;
    const sockets: RawSocket[] = [];
    const alterations = (t: string): [string, string][] => {
      const [b, s] = t.split('.') as [string, string];
      const flips = bitFlips(s);
      return [
        ['truncated by one character', `${b}.${s.slice(0, 42)}`],
        ['truncated to 22 characters', `${b}.${s.slice(0, 22)}`],
        ['its first byte altered', `${b}.${flips[0]!}`],
        ['its last byte altered', `${b}.${flips.at(-1)!}`],
        ['a middle byte altered', `${b}.${flips[16 * 8 + 3]!}`],
      ];
    };

    beforeAll(async () => {
      fake = new FakeTableService(prefix);
      await fake.start();
      gateway = await startTestGateway(testConfig(prefix));
      base = `http://127.0.0.1:${gateway.port}`;
      ({ token: issued } = await identity(base, 'Ana'));
    }, 30_000);
    afterAll(async () => {
      for (const s of sockets.splice(0)) s.close();
      await gateway?.shutdown();
      await fake?.stop();
    });

    it('the socket: a hello with the signature truncated or a byte altered gets TOKEN_INVALID, no welcome, and the socket stays unauthenticated; the issued token is welcome', async () => {
      for (const [, altered] of alterations(issued)) {
        const s = await RawSocket.open(`ws://127.0.0.1:${gateway.port}/ws`);
        sockets.push(s);
        expect(await s.hello(altered)).toMatchObject({ type: 'error', code: 'TOKEN_INVALID' });
        const from = s.frames.length;
        s.send({ type: 'join', id: 'j1', table: 'KQ7MZPR2T4VW' });
        expect(await s.next((f) => f['type'] === 'error', 3000, from)).toMatchObject({
          code: 'UNAUTHENTICATED',
        });
        expect(s.frames.some((f) => f['type'] === 'welcome')).toBe(false);
      }
      const good = await RawSocket.open(`ws://127.0.0.1:${gateway.port}/ws`);
      sockets.push(good);
      expect(await good.hello(issued)).toMatchObject({ type: 'welcome' });
      await sleep(100);
      expect(fake.received.filter((e) => e.intent.kind === 'join')).toEqual([]);
    });

    it('the HTTP API: opening a table with such a bearer token is 401 TOKEN_INVALID and sends no intent', async () => {
      for (const [, altered] of alterations(issued)) {
        const response = await fetch(`${base}/api/tables`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${altered}` },
          body: JSON.stringify({ variant: 'partnership' }),
        });
        expect(response.status).toBe(401);
        expect(await response.json()).toMatchObject({ error: { code: 'TOKEN_INVALID' } });
      }
      await sleep(100);
      expect(fake.received.filter((e) => e.intent.kind === 'create')).toEqual([]);
    });
  });
});
