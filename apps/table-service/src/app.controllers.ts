import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { INTENT_PATTERN, type IntentEnvelope, type IntentReply } from '@dominoes/protocol';
import { TableEngine } from './table/table-engine';

@Controller()
export class IntentsController {
  constructor(@Inject(TableEngine) private readonly engine: TableEngine) {}

  /** Every intent of the tables in this replica's shards arrives here, already checked by the transport. */
  @MessagePattern(INTENT_PATTERN)
  handle(@Payload() envelope: IntentEnvelope): Promise<IntentReply> {
    return this.engine.handle(envelope);
  }
}
