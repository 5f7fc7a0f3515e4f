import { useI18n, type Lang } from './index';

/**
 * The texts of watching a table (issue 12, decision 0018), in the page's four languages. Kept
 * beside the main dictionaries, with the same rule: every language has every key.
 */
export interface WatchDict {
  /** How many watch the table, shown to the players and the spectators. */
  readonly watchers: (n: number) => string;
  readonly watchTable: string;
  readonly watchingTitle: (code: string) => string;
  readonly watchingNote: string;
  readonly waitingPlayers: (seated: number, seats: number) => string;
  readonly playInstead: string;
}

const en: WatchDict = {
  watchers: (n) => (n === 1 ? '1 watching' : `${n} watching`),
  watchTable: 'Watch this table',
  watchingTitle: (code) => `Watching table ${code}`,
  watchingNote: 'You are watching: every hand stays hidden until the round ends.',
  waitingPlayers: (seated, seats) => `Waiting for players: ${seated} of ${seats} seats taken.`,
  playInstead: 'Take a seat instead',
};

const ar: WatchDict = {
  watchers: (n) => (n === 1 ? 'مشاهد واحد' : `${n} يشاهدون`),
  watchTable: 'شاهد هذه الطاولة',
  watchingTitle: (code) => `مشاهدة الطاولة ${code}`,
  watchingNote: 'أنت تشاهد: تبقى كل الأيدي مخفية حتى نهاية الجولة.',
  waitingPlayers: (seated, seats) => `بانتظار اللاعبين: ${seated} من ${seats} مقاعد مشغولة.`,
  playInstead: 'اجلس للعب بدلًا من ذلك',
};

const el: WatchDict = {
  watchers: (n) => (n === 1 ? '1 θεατής' : `${n} θεατές`),
  watchTable: 'Παρακολούθηση του τραπεζιού',
  watchingTitle: (code) => `Παρακολουθείτε το τραπέζι ${code}`,
  watchingNote: 'Παρακολουθείτε: κάθε χέρι μένει κρυφό μέχρι το τέλος του γύρου.',
  waitingPlayers: (seated, seats) => `Αναμονή παικτών: ${seated} από ${seats} θέσεις πιασμένες.`,
  playInstead: 'Πάρτε θέση για να παίξετε',
};

const bg: WatchDict = {
  watchers: (n) => (n === 1 ? '1 гледа' : `${n} гледат`),
  watchTable: 'Гледай тази маса',
  watchingTitle: (code) => `Гледате маса ${code}`,
  watchingNote: 'Вие гледате: всяка ръка остава скрита до края на рунда.',
  waitingPlayers: (seated, seats) => `Чакат се играчи: заети са ${seated} от ${seats} места.`,
  playInstead: 'Седнете да играете',
};

export const WATCH_DICTS: Record<Lang, WatchDict> = { en, ar, el, bg };

/** The watching texts in the page's language. */
export function useWatchTexts(): WatchDict {
  return WATCH_DICTS[useI18n().lang];
}
