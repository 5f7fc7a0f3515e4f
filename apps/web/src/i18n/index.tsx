import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import ar from './ar';
import bg from './bg';
import el from './el';
import en, { type Dict } from './en';

/** The page's languages. To add one: a dictionary typed `Dict`, its rules texts, and one line here. */
export const LANGS = ['en', 'ar', 'el', 'bg'] as const;
export type Lang = (typeof LANGS)[number];

export const DICTS: Record<Lang, Dict> = { en, ar, el, bg };
const RTL: ReadonlySet<Lang> = new Set<Lang>(['ar']);
const LANG_KEY = 'dominoes.lang';

const isLang = (value: unknown): value is Lang =>
  typeof value === 'string' && (LANGS as readonly string[]).includes(value);

/** A saved choice first, then the browser's languages in order (`ar-EG` → `ar`), else English. */
export function detectLang(): Lang {
  try {
    const saved = localStorage.getItem(LANG_KEY);
    if (isLang(saved)) return saved;
  } catch {
    // storage unavailable
  }
  const wanted = navigator.languages?.length ? navigator.languages : [navigator.language];
  for (const tag of wanted) {
    const base = tag?.toLowerCase().split('-')[0];
    if (isLang(base)) return base;
  }
  return 'en';
}

interface I18n {
  readonly lang: Lang;
  readonly t: Dict;
  readonly dir: 'ltr' | 'rtl';
  setLang(lang: Lang): void;
}

const I18nContext = createContext<I18n | null>(null);

export function I18nProvider({ children }: { children: ReactNode }) {
  const [lang, setLangState] = useState<Lang>(detectLang);
  const dir = RTL.has(lang) ? 'rtl' : 'ltr';
  useEffect(() => {
    document.documentElement.lang = lang;
    document.documentElement.dir = dir;
  }, [lang, dir]);
  const value = useMemo<I18n>(
    () => ({
      lang,
      t: DICTS[lang],
      dir,
      setLang(next) {
        try {
          localStorage.setItem(LANG_KEY, next);
        } catch {
          // storage unavailable: the choice lasts for this page
        }
        setLangState(next);
      },
    }),
    [lang, dir],
  );
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18n {
  const value = useContext(I18nContext);
  if (!value) throw new Error('useI18n outside I18nProvider');
  return value;
}

/** "six-four", "double six": the spoken name of a tile. */
export function tileName(t: Dict, tile: readonly [number, number]): string {
  return t.tileName(t.numberWord(tile[0]), t.numberWord(tile[1]), tile[0] === tile[1]);
}

export type { Dict };
