import { ProtocolError } from '@dominoes/protocol';

/** The error code a talk (or any) request was refused with; throws when it was accepted. */
export async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ProtocolError) return error.code;
    throw error;
  }
  throw new Error('accepted');
}
