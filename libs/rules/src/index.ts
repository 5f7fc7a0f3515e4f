export * from './types';
export * from './tiles';
export * from './errors';
export { createSeededRng, shuffled, type Rng, type SeededRng } from './rng';
export {
  RULE_SETS,
  FIVE_TILE_DOMINO_BONUS,
  HOST_TARGET_RANGE,
  HOST_TARGETS_TEXT,
  type RuleSet,
} from './rule-sets';
export {
  createMatch,
  startRound,
  startRoundWithDeal,
  randomDeal,
  legalActions,
  applyAction,
  deadlineAction,
  automaticAction,
  matchResult,
  rulesOf,
  type MatchConfigInput,
  type Deal,
} from './match';
export { publicView, seatOwnPart, seatView, seatViewsSharePublicView } from './view';
export * from './timing';
export {
  replayLine,
  replayCase,
  matchCaseOfLog,
  replayTimeline,
  type ReplayTimeline,
  type StoredLogRow,
  type StoredMatchCase,
  type ReplayOutput,
  type ReplayError,
  type ReplayErrorCode,
  type CaseAction,
  type RoundOutput,
  type FinishedPartnershipRound,
  type FinishedSoloRound,
  type UnfinishedRound,
  type MatchOutput,
  type MatchRoundOutput,
} from './replay';
