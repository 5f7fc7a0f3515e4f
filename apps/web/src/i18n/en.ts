/**
 * English: the reference dictionary. Every other language has exactly these keys, with the same
 * argument lists (the `Dict` type checks it). Strings with a number or a name are functions, so each
 * language builds its own sentence and plural.
 */
const en = {
  langName: 'English',
  appName: 'Dominoes',
  language: 'Language',
  rules: 'Rules',
  close: 'Close',
  playingAs: (name: string) => `Playing as ${name}`,
  changeName: 'Change name',
  mainNav: 'Main',

  /* lobby */
  lobbyTitle: 'Play dominoes with friends',
  lobbyIntro: 'Open a table, send its link to the other players, and play. Nobody plays against robots here.',
  yourName: 'Your name',
  namePlaceholder: 'e.g. Maria',
  continue: 'Continue',
  nameHint: '1 to 24 characters. The other players see it at the table.',
  openTableTitle: 'Open a table',
  ruleSet: 'Rule set',
  variantName: (v: 'partnership' | 'draw' | 'five-tile') =>
    ({ partnership: 'Partnership', draw: 'Draw game', 'five-tile': 'Five-tile' })[v],
  variantBlurb: (v: 'partnership' | 'draw' | 'five-tile') =>
    ({
      partnership: '4 players in 2 teams, 7 tiles each, no drawing.',
      draw: '2 to 4 players, 7 tiles each, draw from the boneyard.',
      'five-tile': '2 to 4 players, 5 tiles each, crossed doubles branch out.',
    })[v],
  target: 'Target',
  targetHint: 'Points that win the match.',
  points: (n: number) => `${n} points`,
  seats: 'Players',
  seatsOption: (n: number) => `${n} players`,
  oneRound: 'One round only',
  open: 'Open the table',
  opening: 'Opening…',
  joinTitle: 'Join a table',
  codeOrLink: 'Table code or link',
  codePlaceholder: 'K7M2QXP4HT9R',
  join: 'Join',
  badCode: 'A table code has 12 letters and digits, like K7M2QXP4HT9R.',
  howToPlay: 'How to play',

  /* waiting room */
  tableCode: 'Table code',
  tableOf: (code: string) => `Table ${code}`,
  copyCode: 'Copy code',
  copyLink: 'Copy link',
  share: 'Share',
  copied: 'Copied',
  shareHint: 'Send the code or the link to the other players.',
  waitingFor: (n: number) => (n === 1 ? 'Waiting for 1 more player…' : `Waiting for ${n} more players…`),
  startsWhenFull: 'The match starts by itself when every seat is taken.',
  seatsTitle: 'Seats',
  seatN: (n: number) => `Seat ${n}`,
  emptySeat: 'Empty',
  host: 'Host',
  you: 'you',
  team: (side: number) => `Team ${'AB'[side] ?? side + 1}`,
  leaveTable: 'Leave the table',
  leaveConfirm: 'The match has started: your seat keeps playing by the clock until you come back. Leave?',
  backToLobby: 'Back to the lobby',

  /* connection */
  connecting: 'Connecting…',
  reconnecting: 'Reconnecting…',
  reconnectingIn: (s: number) => `Reconnecting… next try in ${s} s`,
  retryNow: 'Try now',
  reconnected: 'Connected again.',
  joining: (code: string) => `Joining table ${code}…`,
  tableNotFound: 'There is no table with this code.',
  tableFull: 'This table is full: every seat is taken.',
  problem: (message: string) => `That did not work: ${message}`,
  needName: 'Choose a name to sit at this table.',

  /* the table */
  yourTurn: 'Your turn',
  turnOf: (name: string) => `${name}’s turn`,
  secondsLeft: (s: number) => `${s} s`,
  timeLeft: 'Time left',
  nextRoundIn: (s: number) => `Next round in ${s} s`,
  tilesInHand: (n: number) => (n === 1 ? '1 tile' : `${n} tiles`),
  connected: 'connected',
  disconnected: 'disconnected',
  seatLabel: (name: string, team: string, tiles: string, status: string) =>
    `${name}, ${team}, ${tiles}, ${status}`,
  yourHand: 'Your hand',
  handHint: 'Highlighted tiles can be played. Arrow keys move between tiles; Enter plays.',
  numberWord: (n: number) => ['blank', 'one', 'two', 'three', 'four', 'five', 'six'][n] ?? String(n),
  tileName: (a: string, b: string, double: boolean) => (double ? `double ${a}` : `${a}-${b}`),
  playable: 'playable',
  notPlayable: 'not playable',
  chooseEnd: (tile: string) => `Play ${tile} on which end?`,
  endLeft: (v: number) => `Left end (${v})`,
  endRight: (v: number) => `Right end (${v})`,
  endN: (i: number, v: number) => `End ${i} (${v})`,
  cancel: 'Cancel',
  pass: 'Pass',
  draw: 'Draw a tile',
  autoPass: 'Auto-pass',
  autoPassHint: 'Pass (or draw) at once when no tile fits.',
  boneyard: (n: number) => `Boneyard: ${n}`,
  board: 'Board',
  boardEmpty: 'The board is empty: the opener lays the first tile.',
  boardSummary: (n: number, ends: string) =>
    `${n === 1 ? '1 tile' : `${n} tiles`} on the board. Open ends: ${ends}.`,
  lastPlayed: 'last played',
  dropHere: 'Drop here',
  score: 'Score',
  targetIs: (n: number) => `Target ${n}`,
  roundN: (n: number) => `Round ${n}`,
  moves: 'Moves',
  noMoves: 'No moves yet.',
  logPlay: (name: string, tile: string) => `${name} played ${tile}`,
  logPass: (name: string, ends: string) => `${name} passed on ${ends}`,
  passedShort: (ends: string) => `Passed on ${ends}`,
  drewShort: 'Drew a tile',
  playedShort: 'Played',
  logDraw: (name: string) => `${name} drew a tile`,
  logDrewTile: (name: string, tile: string) => `${name} drew ${tile}`,
  byTable: 'played by the table: time ran out',
  byAuto: 'automatic',
  andList: (items: string[]) =>
    items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`,
  waitingForOpener: (name: string) => `${name} opens the round.`,
  youOpen: 'You open the round: lay any tile your hand allows.',
  scoreboard: 'Scoreboard',
  historyTitle: 'Rounds',
  historyRow: (n: number, winner: string, points: number) => `Round ${n}: ${winner} +${points}`,
  nobody: 'nobody',

  /* announcements (the live region) */
  annYourTurn: 'Your turn.',
  annTurn: (name: string) => `${name}’s turn.`,
  annPass: (name: string, ends: string) => `${name} passed on ${ends}.`,
  annPlay: (name: string, tile: string) => `${name} played ${tile}.`,
  annDraw: (name: string) => `${name} drew a tile.`,
  annByTable: (what: string) => `Time ran out: the table acted. ${what}`,
  annRoundStart: (n: number) => `Round ${n} begins.`,

  /* end of a round */
  roundOver: (n: number) => `Round ${n} is over`,
  dominoed: (name: string) => `${name} dominoed: played their last tile.`,
  blocked: 'The round is blocked: nobody can play any more.',
  pipsLeft: (n: number) => (n === 1 ? '1 pip' : `${n} pips`),
  teamTotal: (team: string, n: number) => `${team}: ${n} pips left`,
  pDomino: (team: string, points: number) =>
    `${team} scores the ${points} pips left in both opponents’ hands (the partner’s hand does not count).`,
  pBlocked: (team: string, points: number) =>
    `The lower total wins: ${team} scores the other team’s ${points} pips.`,
  pBlockedTie: (team: string, points: number) =>
    `Equal totals: the team that placed the last tile, ${team}, scores the other team’s ${points} pips.`,
  dDomino: (name: string, points: number) => `${name} scores the ${points} pips left in all the other hands.`,
  dBlocked: (name: string, points: number) =>
    `${name} holds the fewest pips and scores the difference to each opponent: ${points}.`,
  noWinner: 'Two or more players share the fewest pips: nobody scores.',
  fDomino: (name: string, others: number, bonus: number, points: number) =>
    `${name} scores the ${others} pips left in the other hands plus the ${bonus}-point bonus: ${points}.`,
  fBlocked: (name: string, points: number) =>
    `${name} holds the fewest pips and scores the ${points} pips left in the other hands.`,
  revealedHands: 'Every hand, revealed',
  emptyHand: 'no tiles left',
  scores: 'Scores',
  startNow: 'Start now',
  hostCanStart: 'The host can start the next round sooner.',
  showBoard: 'Show the board',
  showResult: 'Show the result',

  /* end of the match */
  matchOver: 'Match over',
  wins: (who: string) => `${who} wins the match!`,
  youWin: 'You win the match!',
  yourTeamWins: 'Your team wins the match!',
  matchDrawn: 'The round was drawn: no winner this time.',
  finalScores: 'Final scores',
  newMatch: 'New match',
  waitingNewMatch: 'Waiting for the host to start a new match.',

  /* feeling the game */
  joinHint: 'Paste the link you were sent, or type the table’s 12-character code.',
  sound: 'Sounds',
  soundHint: 'A sound for each tile placed, your turn, a pass and the end of a round.',
  sortHand: 'Sort my hand',
  sortShort: 'Sort',
  sortHandNote:
    'Display only: when time runs out, the table plays the first tile that fits in the order dealt, not in this order.',
  newTile: 'new',
  shortTurn: (s: number) =>
    `You were disconnected: your turn is only ${s} s (a disconnected player’s turn). When it runs out, the table plays for you.`,
  awayTurn: (s: number) => `It is your turn: while you are away it lasts ${s} s.`,
  scoreStrip: 'Score',
  yourTurnAlert: 'Your turn!',

  /* refused actions */
  errorText: (code: string, message: string) =>
    ({
      NOT_YOUR_TURN: 'It is not your turn.',
      PASS_NOT_ALLOWED: 'You hold a tile that fits: you may not pass.',
      TILE_DOES_NOT_MATCH: 'That tile does not fit that end.',
      TABLE_FULL: 'This table is full.',
      TABLE_NOT_FOUND: 'There is no table with this code.',
      NOT_HOST: 'Only the host can do that.',
      RATE_LIMITED: 'Too fast: wait a moment.',
      INVALID_TARGET: 'Choose a target from 50 to 500 in steps of 50.',
      TIMEOUT: 'The server did not answer in time.',
      CLOSED: 'The connection closed.',
      NETWORK: 'The network is not answering.',
    })[code] ?? `That did not work: ${message}`,
};

export default en;
export type Dict = typeof en;
