#!/usr/bin/env node
/**
 * `node examples/replay/stored-match.js <gateway URL> <match id>...`: prints each finished match as a
 * line of `npm run replay` (a match case), read from the gateway's `GET /api/replays/<match id>` (the
 * stored log, from the table's shard's database). Pipe it into the replay:
 *
 *   node examples/replay/stored-match.js http://localhost:8080 K7M2QXP4HT9R-1 | npm run --silent replay
 *
 * The answer's own results (each round's points and scores, the final scores) are left out: the
 * replay computes them again through libs/rules, to compare with what the site showed.
 */
async function caseOf(baseUrl, matchId) {
  const url = `${baseUrl.replace(/\/$/, '')}/api/replays/${encodeURIComponent(matchId)}`;
  const response = await fetch(url).catch((error) => {
    throw new Error(`cannot reach the gateway at ${baseUrl} (${error.cause?.message ?? error.message})`);
  });
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const error =
      body && body.error ? `${body.error.code}: ${body.error.message}` : `HTTP ${response.status}`;
    throw new Error(`${matchId}: ${error}`);
  }
  const { variant, seats, target, oneRound } = body;
  const rounds = body.rounds.map(({ hands, stock, opener, actions, complete }) => ({
    hands,
    stock,
    opener,
    actions,
    complete,
  }));
  return { variant, seats, target, oneRound, rounds };
}

async function main() {
  const [baseUrl, ...matchIds] = process.argv.slice(2);
  if (!baseUrl || matchIds.length === 0 || !/^https?:\/\//.test(baseUrl)) {
    process.stderr.write('usage: node examples/replay/stored-match.js <gateway URL> <match id>...\n');
    process.exit(2);
  }
  for (const matchId of matchIds) process.stdout.write(`${JSON.stringify(await caseOf(baseUrl, matchId))}\n`);
}

main().catch((error) => {
  process.stderr.write(`stored-match: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
