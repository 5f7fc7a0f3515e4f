import { Controller, Inject, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { INTENT_PATTERN, type IntentEnvelope, type IntentReply } from '@dominoes/protocol';
import { IntentErrorsAsThrown } from './intent-errors.filter';
import { TableSpectators } from './spectators/table-spectators';
import { TableEngine } from './table/table-engine';

@Controller()
@UseFilters(IntentErrorsAsThrown)
export class IntentsController {
  constructor(
    @Inject(TableEngine) private readonly engine: TableEngine,
    @Inject(TableSpectators) private readonly spectators: TableSpectators,
  ) {}

  /** Every intent of the tables in this replica's shards arrives here, already checked by the transport. */
  @MessagePattern(INTENT_PATTERN)
  handle(@Payload() envelope: IntentEnvelope): Promise<IntentReply> {
    // Watching changes no table: the spectators apply it, not the engine (decision 0018).
    if (envelope.intent.kind === 'watch') return this.spectators.handle(envelope);
    return this.engine.handle(envelope);
  }
}
