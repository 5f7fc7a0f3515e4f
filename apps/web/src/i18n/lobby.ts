import { useI18n, type Lang } from './index';

/**
 * The texts of finding a game (issue 12): the live lobby, public or private tables, quick play and
 * "your tables", in the page's four languages. Kept beside the main dictionaries, with the same
 * rule: every language has every key.
 */
export interface LobbyDict {
  readonly visibility: string;
  readonly privateTable: string;
  readonly privateHint: string;
  readonly publicTable: string;
  readonly publicHint: string;
  readonly quickTitle: string;
  readonly quickIntro: string;
  readonly quickPlay: string;
  readonly quickFinding: string;
  readonly openTables: string;
  readonly noOpenTables: string;
  readonly inPlay: string;
  readonly noTablesInPlay: string;
  readonly yourTables: string;
  readonly backToTable: string;
  readonly takeSeat: string;
  readonly watch: string;
  readonly seatsTaken: (taken: number, seats: number) => string;
  readonly freeSeat: string;
  readonly hostedBy: (name: string) => string;
  readonly openedAgo: (minutes: number) => string;
  readonly waitingStatus: string;
  readonly playingStatus: string;
  readonly privateMark: string;
  readonly moreTables: (n: number) => string;
  readonly live: string;
  readonly offline: string;
}

const en: LobbyDict = {
  visibility: 'Who can join',
  privateTable: 'Private',
  privateHint: 'Only people with the link.',
  publicTable: 'Public',
  publicHint: 'Listed in the lobby for anyone.',
  quickTitle: 'Quick play',
  quickIntro:
    'Sit at the oldest open table of this game, or open a new public one. It starts when every seat is taken.',
  quickPlay: 'Find a seat',
  quickFinding: 'Finding a seat…',
  openTables: 'Open tables',
  noOpenTables: 'No open public tables right now. Open one, or press quick play.',
  inPlay: 'In play',
  noTablesInPlay: 'No public table is being played.',
  yourTables: 'Your tables',
  backToTable: 'Back to the table',
  takeSeat: 'Take a seat',
  watch: 'Watch',
  seatsTaken: (taken, seats) => `${taken} of ${seats} seats taken`,
  freeSeat: 'free seat',
  hostedBy: (name) => `Host: ${name}`,
  openedAgo: (m) => (m < 1 ? 'opened just now' : m === 1 ? 'opened 1 minute ago' : `opened ${m} minutes ago`),
  waitingStatus: 'Waiting',
  playingStatus: 'Playing',
  privateMark: 'private',
  moreTables: (n) => (n === 1 ? '1 more table' : `${n} more tables`),
  live: 'Live',
  offline: 'Reconnecting to the lobby…',
};

const ar: LobbyDict = {
  visibility: 'من يمكنه الانضمام',
  privateTable: 'خاصة',
  privateHint: 'فقط من لديه الرابط.',
  publicTable: 'عامة',
  publicHint: 'تظهر في الردهة للجميع.',
  quickTitle: 'لعب سريع',
  quickIntro:
    'اجلس إلى أقدم طاولة مفتوحة من هذه اللعبة، أو افتح طاولة عامة جديدة. تبدأ عندما تمتلئ كل المقاعد.',
  quickPlay: 'ابحث عن مقعد',
  quickFinding: 'جارٍ البحث عن مقعد…',
  openTables: 'طاولات مفتوحة',
  noOpenTables: 'لا توجد طاولات عامة مفتوحة الآن. افتح واحدة، أو اضغط لعب سريع.',
  inPlay: 'قيد اللعب',
  noTablesInPlay: 'لا تُلعب أي طاولة عامة الآن.',
  yourTables: 'طاولاتك',
  backToTable: 'العودة إلى الطاولة',
  takeSeat: 'اجلس',
  watch: 'شاهد',
  seatsTaken: (taken, seats) => `${taken} من ${seats} مقاعد مشغولة`,
  freeSeat: 'مقعد شاغر',
  hostedBy: (name) => `المضيف: ${name}`,
  openedAgo: (m) => (m < 1 ? 'فُتحت للتو' : m === 1 ? 'فُتحت قبل دقيقة' : `فُتحت قبل ${m} دقيقة`),
  waitingStatus: 'بانتظار اللاعبين',
  playingStatus: 'قيد اللعب',
  privateMark: 'خاصة',
  moreTables: (n) => (n === 1 ? 'طاولة أخرى' : `${n} طاولات أخرى`),
  live: 'مباشر',
  offline: 'جارٍ إعادة الاتصال بالردهة…',
};

const el: LobbyDict = {
  visibility: 'Ποιος μπαίνει',
  privateTable: 'Ιδιωτικό',
  privateHint: 'Μόνο όσοι έχουν τον σύνδεσμο.',
  publicTable: 'Δημόσιο',
  publicHint: 'Φαίνεται στην αίθουσα για όλους.',
  quickTitle: 'Γρήγορο παιχνίδι',
  quickIntro:
    'Κάθεσαι στο παλαιότερο ανοιχτό τραπέζι αυτού του παιχνιδιού ή ανοίγεις ένα νέο δημόσιο. Ξεκινά όταν πιαστούν όλες οι θέσεις.',
  quickPlay: 'Βρες θέση',
  quickFinding: 'Αναζήτηση θέσης…',
  openTables: 'Ανοιχτά τραπέζια',
  noOpenTables: 'Δεν υπάρχουν ανοιχτά δημόσια τραπέζια τώρα. Άνοιξε ένα ή πάτα γρήγορο παιχνίδι.',
  inPlay: 'Σε εξέλιξη',
  noTablesInPlay: 'Δεν παίζεται κανένα δημόσιο τραπέζι.',
  yourTables: 'Τα τραπέζια σου',
  backToTable: 'Πίσω στο τραπέζι',
  takeSeat: 'Κάτσε',
  watch: 'Παρακολούθηση',
  seatsTaken: (taken, seats) => `${taken} από ${seats} θέσεις πιασμένες`,
  freeSeat: 'ελεύθερη θέση',
  hostedBy: (name) => `Οικοδεσπότης: ${name}`,
  openedAgo: (m) =>
    m < 1 ? 'άνοιξε μόλις τώρα' : m === 1 ? 'άνοιξε πριν από 1 λεπτό' : `άνοιξε πριν από ${m} λεπτά`,
  waitingStatus: 'Σε αναμονή',
  playingStatus: 'Παίζεται',
  privateMark: 'ιδιωτικό',
  moreTables: (n) => (n === 1 ? 'ακόμη 1 τραπέζι' : `ακόμη ${n} τραπέζια`),
  live: 'Ζωντανά',
  offline: 'Επανασύνδεση με την αίθουσα…',
};

const bg: LobbyDict = {
  visibility: 'Кой може да влезе',
  privateTable: 'Частна',
  privateHint: 'Само хората с връзката.',
  publicTable: 'Публична',
  publicHint: 'Вижда се в залата от всички.',
  quickTitle: 'Бърза игра',
  quickIntro:
    'Сядаш на най-старата отворена маса от тази игра или отваряш нова публична. Започва, когато всички места се заемат.',
  quickPlay: 'Намери място',
  quickFinding: 'Търсене на място…',
  openTables: 'Отворени маси',
  noOpenTables: 'В момента няма отворени публични маси. Отвори една или натисни „Бърза игра“.',
  inPlay: 'В игра',
  noTablesInPlay: 'Не се играе нито една публична маса.',
  yourTables: 'Твоите маси',
  backToTable: 'Обратно към масата',
  takeSeat: 'Седни',
  watch: 'Гледай',
  seatsTaken: (taken, seats) => `${taken} от ${seats} места заети`,
  freeSeat: 'свободно място',
  hostedBy: (name) => `Домакин: ${name}`,
  openedAgo: (m) =>
    m < 1 ? 'отворена току-що' : m === 1 ? 'отворена преди 1 минута' : `отворена преди ${m} минути`,
  waitingStatus: 'Чака играчи',
  playingStatus: 'Играе се',
  privateMark: 'частна',
  moreTables: (n) => (n === 1 ? 'още 1 маса' : `още ${n} маси`),
  live: 'На живо',
  offline: 'Повторно свързване със залата…',
};

export const LOBBY_DICTS: Record<Lang, LobbyDict> = { en, ar, el, bg };

/** The lobby's texts in the page's language. */
export function useLobbyTexts(): LobbyDict {
  return LOBBY_DICTS[useI18n().lang];
}
