import {
  actionOfMessage,
  ActionSchema,
  connectionId,
  intentIds,
  intentName,
  isActionMessage,
  messageOfAction,
  parseClientFrame,
  parseConnectionId,
  TableIntentSchema,
} from '@dominoes/protocol';
import { createMatch, createSeededRng, legalActions, startRound, type Action } from '@dominoes/rules';

/** Every legal action of every seat at the start of a round of each variant, and a few ends. */
function someActions(): Action[] {
  const actions: Action[] = [];
  for (const variant of ['partnership', 'draw', 'five-tile'] as const) {
    const created = createMatch({ variant });
    if (!created.ok) throw new Error(created.error.message);
    const dealt = startRound(created.value, createSeededRng(7));
    if (!dealt.ok) throw new Error(dealt.error.message);
    for (let seat = 0; seat < dealt.value.config.seats; seat++)
      actions.push(...legalActions(dealt.value, seat));
  }
  actions.push(
    { type: 'play', seat: 2, tile: [6, 4], end: 'left' },
    { type: 'pass', seat: 1 },
    { type: 'draw', seat: 3 },
  );
  return actions;
}

describe('one move, two spellings: the rules action and the browser frame', () => {
  it('a legal action becomes a frame the gateway accepts, and that frame the same action of the socket’s seat', () => {
    const actions = someActions();
    expect(actions.length).toBeGreaterThan(10);
    for (const action of actions) {
      const message = messageOfAction(action, 'k7');
      expect(message).not.toHaveProperty('seat');
      const parsed = parseClientFrame(JSON.stringify(message));
      if (!parsed.ok) throw new Error(parsed.error.message);
      const frame = parsed.value;
      if (!isActionMessage(frame)) throw new Error(frame.type);
      expect(actionOfMessage(frame, action.seat)).toEqual(action);
      expect(ActionSchema.parse(action)).toEqual(action);
    }
  });

  it('a play without an end carries no end; other frames are no moves', () => {
    expect(messageOfAction({ type: 'play', seat: 0, tile: [1, 2] }, 'a')).toEqual({
      type: 'play',
      id: 'a',
      tile: [1, 2],
    });
    expect(actionOfMessage({ type: 'play', id: 'a', tile: [1, 2] }, 3)).toEqual({
      type: 'play',
      seat: 3,
      tile: [1, 2],
    });
    expect(isActionMessage({ type: 'autoPass', id: 'a', on: true })).toBe(false);
    expect(isActionMessage({ type: 'sync', id: 'a' })).toBe(false);
  });

  it('an intent carries the action; its name is the action’s type, or the kind', () => {
    const intent = TableIntentSchema.parse({ kind: 'action', action: { type: 'draw', seat: 1 } });
    expect(intentName(intent)).toBe('draw');
    expect(intentName({ kind: 'presence', connected: false })).toBe('presence');
    expect(TableIntentSchema.safeParse({ kind: 'action', action: { type: 'play', seat: 1 } }).success).toBe(
      false,
    );
  });
});

describe('the ids the services make for each other', () => {
  it('spells each intent id one way', () => {
    expect(intentIds.player('p1', 'k7')).toBe('p1:k7');
    expect(intentIds.create('p1', 'ABCDEFGHJKMN')).toBe('p1:create:ABCDEFGHJKMN');
    expect(intentIds.closed('gw:17')).toBe('gw:17:closed');
    expect(intentIds.left('gw:17', 2)).toBe('gw:17:left:2');
    expect(intentIds.sync('gw:17', 2)).toBe('gw:17:sync:2');
    expect(intentIds.deadline('42')).toBe('deadline:42');
  });

  it('reads back the connection ids it makes', () => {
    const id = connectionId('gw-1.a_b', 1_700_000_000_001);
    expect(id).toBe('gw-1.a_b:1700000000001');
    expect(parseConnectionId(id)).toEqual({ gatewayId: 'gw-1.a_b', seq: 1_700_000_000_001 });
    expect(parseConnectionId(intentIds.closed(id))).toBeNull();
  });
});
