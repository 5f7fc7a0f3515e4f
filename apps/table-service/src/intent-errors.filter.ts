import { Catch, type RpcExceptionFilter } from '@nestjs/common';
import { throwError, type Observable } from 'rxjs';

/**
 * Hands an intent handler's error to the shard transport as it was thrown. Nest's default RPC filter
 * replaces every error that is not an RpcException with `{ status: 'error', message: 'Internal server
 * error' }`, and the transport must tell them apart: a WriteOutcomeUnknownError (the write may have
 * been stored) is left unanswered and pending, anything else is answered INTERNAL
 * (sharded-streams.server.ts). Without this filter every store failure, stored or not, was answered
 * INTERNAL "not applied" (found by the chaos test: a move refused but stored).
 */
@Catch()
export class IntentErrorsAsThrown implements RpcExceptionFilter<unknown> {
  catch(exception: unknown): Observable<never> {
    return throwError(() => exception);
  }
}
