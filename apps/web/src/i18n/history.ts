import type { MatchOutcome } from '@dominoes/protocol';
import { useI18n, type Lang } from './index';

/**
 * The texts of "Your matches" and the replay page (issue 12, "Looking back"), in the page's four
 * languages. Kept beside the main dictionaries, with the same rule: every language has every key.
 */
export interface HistoryDict {
  readonly yourMatches: string;
  readonly yourMatchesIntro: string;
  readonly noMatches: string;
  readonly needIdentity: string;
  readonly loading: string;
  readonly loadFailed: (message: string) => string;
  readonly colDate: string;
  readonly colRuleSet: string;
  readonly colPartners: string;
  readonly colOpponents: string;
  readonly colResult: string;
  readonly outcome: (o: MatchOutcome) => string;
  readonly openReplay: string;
  readonly backToTable: string;
  readonly newer: string;
  readonly older: string;
  readonly pageN: (n: number) => string;
  readonly replayTitle: string;
  readonly abandonedNote: string;
  readonly winnerIs: (name: string) => string;
  readonly nobodyWon: string;
  readonly toStart: string;
  readonly prevRound: string;
  readonly back: string;
  readonly forward: string;
  readonly nextRound: string;
  readonly toEnd: string;
  readonly stepOf: (round: number, move: number, moves: number) => string;
  readonly dealt: string;
  readonly keysHint: string;
  readonly scoreAfter: string;
  readonly roundCol: string;
  readonly unfinished: string;
  readonly notOver: string;
  readonly notFound: string;
  readonly badId: string;
  readonly share: string;
  readonly nobodyShort: string;
}

const en: HistoryDict = {
  yourMatches: 'Your matches',
  yourMatchesIntro: 'The matches you played with this name on this device, newest first.',
  noMatches: 'No matches yet: the matches you play appear here.',
  needIdentity: 'Choose a name and play a match: your matches appear here.',
  loading: 'Loading…',
  loadFailed: (m) => `Could not load them: ${m}`,
  colDate: 'Date',
  colRuleSet: 'Rule set',
  colPartners: 'Partners',
  colOpponents: 'Opponents',
  colResult: 'Result',
  outcome: (o) =>
    ({ won: 'Won', lost: 'Lost', drawn: 'Nobody won', abandoned: 'Abandoned', playing: 'In play' })[o],
  openReplay: 'Replay',
  backToTable: 'Back to the table',
  newer: 'Newer',
  older: 'Older',
  pageN: (n) => `Page ${n}`,
  replayTitle: 'Replay',
  abandonedNote: 'Abandoned: nobody was connected, so the match ended with no winner.',
  winnerIs: (name) => `Winner: ${name}`,
  nobodyWon: 'Nobody won.',
  toStart: 'Start of the match',
  prevRound: 'Previous round',
  back: 'Previous move',
  forward: 'Next move',
  nextRound: 'Next round',
  toEnd: 'End of the match',
  stepOf: (r, m, n) => `Round ${r} · move ${m} of ${n}`,
  dealt: 'The deal: every hand as it was dealt.',
  keysHint: 'The arrow keys step through the moves; Home and End go to the start and the end.',
  scoreAfter: 'Score after each round',
  roundCol: 'Round',
  unfinished: 'not finished',
  notOver: 'This match is still being played. Its replay, with every hand, opens when it ends.',
  notFound: 'There is no match with this id.',
  badId: 'This is not a match id.',
  share: 'Copy the replay link',
  nobodyShort: '—',
};

const ar: HistoryDict = {
  yourMatches: 'مبارياتك',
  yourMatchesIntro: 'المباريات التي لعبتها بهذا الاسم على هذا الجهاز، الأحدث أولاً.',
  noMatches: 'لا مباريات بعد: تظهر هنا المباريات التي تلعبها.',
  needIdentity: 'اختر اسماً والعب مباراة: تظهر مبارياتك هنا.',
  loading: 'جارٍ التحميل…',
  loadFailed: (m) => `تعذّر تحميلها: ${m}`,
  colDate: 'التاريخ',
  colRuleSet: 'نوع اللعبة',
  colPartners: 'الشركاء',
  colOpponents: 'الخصوم',
  colResult: 'النتيجة',
  outcome: (o) =>
    ({ won: 'فوز', lost: 'خسارة', drawn: 'لا فائز', abandoned: 'متروكة', playing: 'قيد اللعب' })[o],
  openReplay: 'إعادة العرض',
  backToTable: 'العودة إلى الطاولة',
  newer: 'الأحدث',
  older: 'الأقدم',
  pageN: (n) => `الصفحة ${n}`,
  replayTitle: 'إعادة العرض',
  abandonedNote: 'متروكة: لم يكن أحد متصلاً، فانتهت المباراة بلا فائز.',
  winnerIs: (name) => `الفائز: ${name}`,
  nobodyWon: 'لم يفز أحد.',
  toStart: 'بداية المباراة',
  prevRound: 'الجولة السابقة',
  back: 'الحركة السابقة',
  forward: 'الحركة التالية',
  nextRound: 'الجولة التالية',
  toEnd: 'نهاية المباراة',
  stepOf: (r, m, n) => `الجولة ${r} · الحركة ${m} من ${n}`,
  dealt: 'التوزيع: كل يد كما وُزّعت.',
  keysHint: 'تنقّل بين الحركات بمفاتيح الأسهم؛ Home وEnd للبداية والنهاية.',
  scoreAfter: 'النقاط بعد كل جولة',
  roundCol: 'الجولة',
  unfinished: 'لم تكتمل',
  notOver: 'هذه المباراة ما زالت قيد اللعب. تُفتح إعادة عرضها، بكل الأيدي، عند انتهائها.',
  notFound: 'لا توجد مباراة بهذا المعرّف.',
  badId: 'هذا ليس معرّف مباراة.',
  share: 'نسخ رابط إعادة العرض',
  nobodyShort: '—',
};

const el: HistoryDict = {
  yourMatches: 'Οι αγώνες σας',
  yourMatchesIntro: 'Οι αγώνες που παίξατε με αυτό το όνομα σε αυτή τη συσκευή, οι νεότεροι πρώτα.',
  noMatches: 'Κανένας αγώνας ακόμη: οι αγώνες που παίζετε εμφανίζονται εδώ.',
  needIdentity: 'Διαλέξτε όνομα και παίξτε έναν αγώνα: οι αγώνες σας εμφανίζονται εδώ.',
  loading: 'Φόρτωση…',
  loadFailed: (m) => `Δεν φορτώθηκαν: ${m}`,
  colDate: 'Ημερομηνία',
  colRuleSet: 'Παιχνίδι',
  colPartners: 'Συμπαίκτες',
  colOpponents: 'Αντίπαλοι',
  colResult: 'Αποτέλεσμα',
  outcome: (o) =>
    ({
      won: 'Νίκη',
      lost: 'Ήττα',
      drawn: 'Κανείς νικητής',
      abandoned: 'Εγκαταλείφθηκε',
      playing: 'Σε εξέλιξη',
    })[o],
  openReplay: 'Επανάληψη',
  backToTable: 'Πίσω στο τραπέζι',
  newer: 'Νεότεροι',
  older: 'Παλαιότεροι',
  pageN: (n) => `Σελίδα ${n}`,
  replayTitle: 'Επανάληψη',
  abandonedNote: 'Εγκαταλείφθηκε: κανείς δεν ήταν συνδεδεμένος, ο αγώνας έληξε χωρίς νικητή.',
  winnerIs: (name) => `Νικητής: ${name}`,
  nobodyWon: 'Κανείς δεν κέρδισε.',
  toStart: 'Αρχή του αγώνα',
  prevRound: 'Προηγούμενος γύρος',
  back: 'Προηγούμενη κίνηση',
  forward: 'Επόμενη κίνηση',
  nextRound: 'Επόμενος γύρος',
  toEnd: 'Τέλος του αγώνα',
  stepOf: (r, m, n) => `Γύρος ${r} · κίνηση ${m} από ${n}`,
  dealt: 'Το μοίρασμα: κάθε χέρι όπως μοιράστηκε.',
  keysHint: 'Τα βέλη περνούν από κίνηση σε κίνηση· Home και End πάνε στην αρχή και στο τέλος.',
  scoreAfter: 'Σκορ μετά από κάθε γύρο',
  roundCol: 'Γύρος',
  unfinished: 'δεν τελείωσε',
  notOver: 'Αυτός ο αγώνας παίζεται ακόμη. Η επανάληψή του, με όλα τα χέρια, ανοίγει όταν τελειώσει.',
  notFound: 'Δεν υπάρχει αγώνας με αυτό το αναγνωριστικό.',
  badId: 'Αυτό δεν είναι αναγνωριστικό αγώνα.',
  share: 'Αντιγραφή συνδέσμου επανάληψης',
  nobodyShort: '—',
};

const bg: HistoryDict = {
  yourMatches: 'Вашите мачове',
  yourMatchesIntro: 'Мачовете, които сте играли с това име на това устройство, най-новите първи.',
  noMatches: 'Още няма мачове: мачовете, които играете, се появяват тук.',
  needIdentity: 'Изберете име и изиграйте мач: мачовете ви се появяват тук.',
  loading: 'Зареждане…',
  loadFailed: (m) => `Не се заредиха: ${m}`,
  colDate: 'Дата',
  colRuleSet: 'Игра',
  colPartners: 'Партньори',
  colOpponents: 'Противници',
  colResult: 'Резултат',
  outcome: (o) =>
    ({ won: 'Победа', lost: 'Загуба', drawn: 'Няма победител', abandoned: 'Изоставен', playing: 'В ход' })[o],
  openReplay: 'Преглед',
  backToTable: 'Обратно към масата',
  newer: 'По-нови',
  older: 'По-стари',
  pageN: (n) => `Страница ${n}`,
  replayTitle: 'Преглед на мача',
  abandonedNote: 'Изоставен: никой не беше свързан и мачът завърши без победител.',
  winnerIs: (name) => `Победител: ${name}`,
  nobodyWon: 'Никой не спечели.',
  toStart: 'Началото на мача',
  prevRound: 'Предишен рунд',
  back: 'Предишен ход',
  forward: 'Следващ ход',
  nextRound: 'Следващ рунд',
  toEnd: 'Краят на мача',
  stepOf: (r, m, n) => `Рунд ${r} · ход ${m} от ${n}`,
  dealt: 'Раздаването: всяка ръка, както е раздадена.',
  keysHint: 'Стрелките минават от ход на ход; Home и End отиват в началото и в края.',
  scoreAfter: 'Резултат след всеки рунд',
  roundCol: 'Рунд',
  unfinished: 'незавършен',
  notOver: 'Този мач още се играе. Прегледът му, с всички ръце, се отваря, когато свърши.',
  notFound: 'Няма мач с този идентификатор.',
  badId: 'Това не е идентификатор на мач.',
  share: 'Копиране на връзката към прегледа',
  nobodyShort: '—',
};

export const HISTORY_DICTS: Record<Lang, HistoryDict> = { en, ar, el, bg };

/** The history texts in the page's language. */
export function useHistoryTexts(): HistoryDict {
  return HISTORY_DICTS[useI18n().lang];
}
