import { createMatch, startRound, createRng, deadlineAction, applyAction, matchResult } from '@dominoes/rules';
it('plays a match by deadlines', () => {
  const rng = createRng(1);
  let m = createMatch({ variant: 'partnership' });
  if (!m.ok) throw new Error();
  let s = m.value;
  for (let i = 0; i < 10000 && s.phase !== 'over'; i++) {
    if (s.phase !== 'playing') { const r = startRound(s, rng); if (!r.ok) throw new Error(r.error.message); s = r.value; continue; }
    const a = deadlineAction(s)!; const r = applyAction(s, a); if (!r.ok) throw new Error(r.error.message); s = r.value;
  }
  console.log(JSON.stringify(matchResult(s)), s.history.length);
});
