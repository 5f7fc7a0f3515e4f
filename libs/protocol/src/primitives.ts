import { z } from 'zod';

export const TileSchema = z
  .tuple([z.number().int().min(0).max(6), z.number().int().min(0).max(6)])
  .describe('A tile [a, b], each half 0..6');

export const VariantSchema = z.enum(['partnership', 'draw', 'five-tile']);

/** A client-made id for an intent: repeated ids are applied at most once. */
export const IntentIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_.:-]+$/, 'letters, digits and _ . : - only');

/** Join codes: 6 characters from an alphabet without look-alikes (no 0/O, 1/I/L). */
export const TABLE_CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const TableCodeSchema = z
  .string()
  .length(6)
  .regex(new RegExp(`^[${TABLE_CODE_ALPHABET}]+$`), 'a 6-character table code');

export const PlayerNameSchema = z
  .string()
  .trim()
  .min(1, 'a name is 1 to 24 characters')
  .max(24, 'a name is 1 to 24 characters')
  .regex(/^[^\p{C}]+$/u, 'no control characters');

export const EndIdSchema = z.string().min(1).max(8);
