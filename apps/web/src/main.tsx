import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { SessionContext } from './hooks';
import { I18nProvider } from './i18n';
import { LiveRegionProvider } from './components/LiveRegion';
import { Session } from './session';
import './styles.css';

const session = new Session();

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <SessionContext.Provider value={session}>
      <I18nProvider>
        <LiveRegionProvider>
          <App />
        </LiveRegionProvider>
      </I18nProvider>
    </SessionContext.Provider>
  </StrictMode>,
);
