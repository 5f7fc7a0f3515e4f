import { useEffect, useState } from 'react';
import { useRoute, useSession } from './hooks';
import { useI18n } from './i18n';
import { Header } from './components/Header';
import { Lobby } from './components/Lobby';
import { RulesDialog } from './components/RulesDialog';
import { TableScreen } from './components/TableScreen';
import { WatchScreen } from './components/WatchScreen';
import { ConnectionBanner } from './components/ConnectionBanner';
import { MyMatches } from './components/MyMatches';
import { ReplayScreen } from './components/ReplayScreen';
import { VARIANTS, type Variant } from '@dominoes/rules';

/** `/?rules=draw` opens the rules of that game (the gateway serves `/` for any query). */
function rulesFromQuery(): Variant | null {
  const value = new URLSearchParams(location.search).get('rules');
  return VARIANTS.find((v) => v === value) ?? null;
}

export function App() {
  const route = useRoute();
  const [state, session] = useSession();
  const [rules, setRules] = useState<Variant | null>(rulesFromQuery);

  const { t } = useI18n();
  const code = route.name === 'table' ? route.code : null;
  const watch = route.name === 'table' && route.watch === true;
  const ownTitle = route.name === 'matches' || route.name === 'replay';
  useEffect(() => {
    if (!state.view?.game && !ownTitle)
      document.title = code ? `${t.tableOf(code)} · ${t.appName}` : t.appName;
  }, [code, t, state.view?.game, ownTitle]);
  useEffect(() => {
    session.showTable(code, watch);
  }, [code, watch, session]);

  const tableVariant = state.view?.variant ?? 'partnership';
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        ↓
      </a>
      <Header onRules={() => setRules(route.name === 'table' ? tableVariant : 'partnership')} />
      <ConnectionBanner />
      {route.name === 'table' ? (
        route.watch ? (
          <WatchScreen code={route.code} />
        ) : (
          <TableScreen code={route.code} />
        )
      ) : route.name === 'matches' ? (
        <MyMatches />
      ) : route.name === 'replay' ? (
        <ReplayScreen id={route.id} />
      ) : (
        <Lobby onRules={(v) => setRules(v)} />
      )}
      <RulesDialog open={rules !== null} initial={rules ?? 'partnership'} onClose={() => setRules(null)} />
    </div>
  );
}
