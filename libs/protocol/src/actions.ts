import { z } from 'zod';
import type { Action } from '@dominoes/rules';
import type { ClientIntent, ClientMessage } from './messages';
import { EndIdSchema, TileSchema } from './primitives';

/**
 * A type a schema's output must equal: the rules' own type, readonly or not. A field the rules add
 * and the schema lacks (zod would drop it) or one the schema invents fails the build.
 */
export type DeepReadonly<T> = T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T;
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export type InSync<Schema extends z.ZodType, T> = Same<DeepReadonly<z.infer<Schema>>, DeepReadonly<T>>;

const ActionObjectSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('play'),
    seat: z.number().int(),
    tile: TileSchema,
    end: EndIdSchema.optional(),
  }),
  z.object({ type: z.literal('pass'), seat: z.number().int() }),
  z.object({ type: z.literal('draw'), seat: z.number().int() }),
]);
const _actionInSync: InSync<typeof ActionObjectSchema, Action> = true;
void _actionInSync;

/**
 * The rules' `Action`: the one word for a move inside the system. A seat view lists the legal
 * ones, an intent carries one (`{kind: 'action'}`), the log stores them. Only the browser's frames
 * spell a move otherwise (`play`/`pass`/`draw` without a seat: the socket's seat is implied), and
 * the two functions below are the one translation between them.
 */
export const ActionSchema: z.ZodType<Action> = ActionObjectSchema;

/** The browser frames that are moves: one per type of rules action. */
export type ActionMessage = Extract<ClientIntent, { type: Action['type'] }>;

export const isActionMessage = (message: ClientMessage): message is ActionMessage =>
  message.type === 'play' || message.type === 'pass' || message.type === 'draw';

/** A move frame as the rules' action of `seat`, the seat the sending socket is bound to. */
export function actionOfMessage(message: ActionMessage, seat: number): Action {
  switch (message.type) {
    case 'play':
      return message.end === undefined
        ? { type: 'play', seat, tile: message.tile }
        : { type: 'play', seat, tile: message.tile, end: message.end };
    case 'pass':
    case 'draw':
      return { type: message.type, seat };
  }
}

/** The frame (intent id `id`) that asks for `action`, one of the seat's legal actions: the seat is the socket's. */
export function messageOfAction(action: Action, id: string): ActionMessage {
  switch (action.type) {
    case 'play': {
      const tile: [number, number] = [action.tile[0], action.tile[1]];
      return action.end === undefined
        ? { type: 'play', id, tile }
        : { type: 'play', id, tile, end: action.end };
    }
    case 'pass':
    case 'draw':
      return { type: action.type, id };
  }
}
