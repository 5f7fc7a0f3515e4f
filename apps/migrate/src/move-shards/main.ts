import { shardsMove } from './command';

/** `npm run shards:move -- --shards 8-15 --to 2` (docs/operations.md, "Moving a shard group"). */
shardsMove(process.argv.slice(2), process.env, {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
})
  .then((code) => process.exit(code))
  .catch((error: unknown) => {
    console.error(`shards:move: ${String(error)}`);
    process.exit(1);
  });
