import type { ChatPhrase, ChatReaction } from '@dominoes/protocol';
import { useI18n, type Lang } from './index';

/**
 * The texts of the table's chat (issue 12, "Talking", decision 0020) in the page's four languages,
 * beside the main dictionaries with the same rule: every language has every key. A quick phrase
 * travels as its id and is shown in the reader's language, whoever sent it.
 */
export interface ChatDict {
  readonly title: string;
  readonly show: string;
  readonly hide: string;
  readonly unread: (n: number) => string;
  readonly phrasesLabel: string;
  readonly phrase: Readonly<Record<ChatPhrase, string>>;
  readonly reactionsLabel: string;
  readonly reaction: Readonly<Record<ChatReaction, string>>;
  readonly reacted: (reaction: string) => string;
  readonly inputLabel: string;
  readonly placeholder: string;
  readonly send: string;
  readonly charactersLeft: (n: number) => string;
  readonly off: string;
  readonly spectator: string;
  readonly empty: string;
  readonly mute: (name: string) => string;
  readonly unmute: (name: string) => string;
  readonly mutedCount: (n: number) => string;
  readonly mutedNote: string;
  readonly you: string;
  readonly optionLabel: string;
  readonly optionHint: string;
  readonly error: (code: string, message: string) => string;
}

const en: ChatDict = {
  title: 'Chat',
  show: 'Show the chat',
  hide: 'Hide the chat',
  unread: (n) => (n === 1 ? '1 new message' : `${n} new messages`),
  phrasesLabel: 'Quick phrases',
  phrase: {
    hello: 'Hello!',
    goodLuck: 'Good luck!',
    goodGame: 'Good game!',
    wellPlayed: 'Well played!',
    niceMove: 'Nice move!',
    thanks: 'Thanks!',
    sorry: 'Sorry!',
    hurryUp: 'Hurry up, please!',
    oneMoment: 'One moment…',
    rematch: 'Another match?',
    bye: 'Bye!',
  },
  reactionsLabel: 'Reactions',
  reaction: {
    thumbsUp: 'thumbs up',
    clap: 'applause',
    laugh: 'laughing',
    wow: 'surprised',
    sad: 'sad',
    angry: 'angry',
    heart: 'heart',
    fire: 'on fire',
  },
  reacted: (reaction) => `reacted: ${reaction}`,
  inputLabel: 'Message to the table',
  placeholder: 'Write a message…',
  send: 'Send',
  charactersLeft: (n) => `${n} characters left`,
  off: 'The host turned text chat off at this table. Quick phrases and reactions still work.',
  spectator: 'You are watching: spectators read the chat, only the players write.',
  empty: 'Nothing said yet.',
  mute: (name) => `Mute ${name}`,
  unmute: (name) => `Unmute ${name}`,
  mutedCount: (n) =>
    n === 1 ? '1 message from a muted player hidden' : `${n} messages from muted players hidden`,
  mutedNote: 'Muted on this device only; the others are not told.',
  you: 'you',
  optionLabel: 'Text chat at the table',
  optionHint: 'Quick phrases and reactions are always on.',
  error: (code, message) =>
    ({
      CHAT_RATE_LIMITED: 'Too many messages: wait a few seconds.',
      CHAT_OFF: 'Text chat is off at this table.',
      NOT_SEATED: 'Only the players seated at this table can write.',
      INVALID_MESSAGE: 'That message cannot be sent (empty, too long or with invisible characters).',
    })[code] ?? `Not sent: ${message}`,
};

const ar: ChatDict = {
  title: 'الدردشة',
  show: 'إظهار الدردشة',
  hide: 'إخفاء الدردشة',
  unread: (n) => (n === 1 ? 'رسالة جديدة واحدة' : `${n} رسائل جديدة`),
  phrasesLabel: 'عبارات سريعة',
  phrase: {
    hello: 'مرحبًا!',
    goodLuck: 'بالتوفيق!',
    goodGame: 'مباراة جيدة!',
    wellPlayed: 'أحسنت اللعب!',
    niceMove: 'حركة رائعة!',
    thanks: 'شكرًا!',
    sorry: 'آسف!',
    hurryUp: 'أسرع من فضلك!',
    oneMoment: 'لحظة من فضلك…',
    rematch: 'مباراة أخرى؟',
    bye: 'مع السلامة!',
  },
  reactionsLabel: 'تفاعلات',
  reaction: {
    thumbsUp: 'إعجاب',
    clap: 'تصفيق',
    laugh: 'ضحك',
    wow: 'دهشة',
    sad: 'حزن',
    angry: 'غضب',
    heart: 'قلب',
    fire: 'نار',
  },
  reacted: (reaction) => `تفاعل: ${reaction}`,
  inputLabel: 'رسالة إلى الطاولة',
  placeholder: 'اكتب رسالة…',
  send: 'إرسال',
  charactersLeft: (n) => `بقي ${n} حرفًا`,
  off: 'أوقف المضيف الدردشة النصية على هذه الطاولة. العبارات السريعة والتفاعلات ما زالت تعمل.',
  spectator: 'أنت تشاهد: المشاهدون يقرؤون الدردشة، واللاعبون وحدهم يكتبون.',
  empty: 'لم يُكتب شيء بعد.',
  mute: (name) => `كتم ${name}`,
  unmute: (name) => `إلغاء كتم ${name}`,
  mutedCount: (n) => (n === 1 ? 'رسالة واحدة من لاعب مكتوم مخفية' : `${n} رسائل من لاعبين مكتومين مخفية`),
  mutedNote: 'الكتم على هذا الجهاز فقط، ولا يُبلَّغ الآخرون به.',
  you: 'أنت',
  optionLabel: 'الدردشة النصية على الطاولة',
  optionHint: 'العبارات السريعة والتفاعلات متاحة دائمًا.',
  error: (code, message) =>
    ({
      CHAT_RATE_LIMITED: 'رسائل كثيرة جدًا: انتظر بضع ثوانٍ.',
      CHAT_OFF: 'الدردشة النصية متوقفة على هذه الطاولة.',
      NOT_SEATED: 'يكتب هنا اللاعبون الجالسون إلى هذه الطاولة فقط.',
      INVALID_MESSAGE: 'لا يمكن إرسال هذه الرسالة (فارغة أو طويلة جدًا أو فيها أحرف غير مرئية).',
    })[code] ?? `لم تُرسل: ${message}`,
};

const el: ChatDict = {
  title: 'Συνομιλία',
  show: 'Εμφάνιση της συνομιλίας',
  hide: 'Απόκρυψη της συνομιλίας',
  unread: (n) => (n === 1 ? '1 νέο μήνυμα' : `${n} νέα μηνύματα`),
  phrasesLabel: 'Γρήγορες φράσεις',
  phrase: {
    hello: 'Γεια σας!',
    goodLuck: 'Καλή τύχη!',
    goodGame: 'Καλό παιχνίδι!',
    wellPlayed: 'Μπράβο, ωραία παιγμένο!',
    niceMove: 'Ωραία κίνηση!',
    thanks: 'Ευχαριστώ!',
    sorry: 'Συγγνώμη!',
    hurryUp: 'Βιάσου, σε παρακαλώ!',
    oneMoment: 'Μια στιγμή…',
    rematch: 'Άλλο ένα παιχνίδι;',
    bye: 'Αντίο!',
  },
  reactionsLabel: 'Αντιδράσεις',
  reaction: {
    thumbsUp: 'μπράβο',
    clap: 'χειροκρότημα',
    laugh: 'γέλιο',
    wow: 'έκπληξη',
    sad: 'λύπη',
    angry: 'θυμός',
    heart: 'καρδιά',
    fire: 'φωτιά',
  },
  reacted: (reaction) => `αντέδρασε: ${reaction}`,
  inputLabel: 'Μήνυμα προς το τραπέζι',
  placeholder: 'Γράψτε ένα μήνυμα…',
  send: 'Αποστολή',
  charactersLeft: (n) => `Απομένουν ${n} χαρακτήρες`,
  off: 'Ο οικοδεσπότης απενεργοποίησε τη γραπτή συνομιλία σε αυτό το τραπέζι. Οι γρήγορες φράσεις και οι αντιδράσεις λειτουργούν.',
  spectator: 'Παρακολουθείτε: οι θεατές διαβάζουν τη συνομιλία, γράφουν μόνο οι παίκτες.',
  empty: 'Δεν έχει γραφτεί τίποτα ακόμα.',
  mute: (name) => `Σίγαση: ${name}`,
  unmute: (name) => `Άρση σίγασης: ${name}`,
  mutedCount: (n) =>
    n === 1 ? '1 μήνυμα από παίκτη σε σίγαση κρυμμένο' : `${n} μηνύματα από παίκτες σε σίγαση κρυμμένα`,
  mutedNote: 'Η σίγαση ισχύει μόνο σε αυτή τη συσκευή· οι άλλοι δεν ενημερώνονται.',
  you: 'εσύ',
  optionLabel: 'Γραπτή συνομιλία στο τραπέζι',
  optionHint: 'Οι γρήγορες φράσεις και οι αντιδράσεις είναι πάντα ενεργές.',
  error: (code, message) =>
    ({
      CHAT_RATE_LIMITED: 'Πολλά μηνύματα: περιμένετε λίγα δευτερόλεπτα.',
      CHAT_OFF: 'Η γραπτή συνομιλία είναι απενεργοποιημένη σε αυτό το τραπέζι.',
      NOT_SEATED: 'Γράφουν μόνο οι παίκτες που κάθονται σε αυτό το τραπέζι.',
      INVALID_MESSAGE: 'Το μήνυμα δεν μπορεί να σταλεί (κενό, πολύ μεγάλο ή με αόρατους χαρακτήρες).',
    })[code] ?? `Δεν στάλθηκε: ${message}`,
};

const bg: ChatDict = {
  title: 'Чат',
  show: 'Покажи чата',
  hide: 'Скрий чата',
  unread: (n) => (n === 1 ? '1 ново съобщение' : `${n} нови съобщения`),
  phrasesLabel: 'Бързи фрази',
  phrase: {
    hello: 'Здравейте!',
    goodLuck: 'Успех!',
    goodGame: 'Добра игра!',
    wellPlayed: 'Браво, добре изиграно!',
    niceMove: 'Хубав ход!',
    thanks: 'Благодаря!',
    sorry: 'Извинете!',
    hurryUp: 'Побързай, моля!',
    oneMoment: 'Един момент…',
    rematch: 'Още един мач?',
    bye: 'Довиждане!',
  },
  reactionsLabel: 'Реакции',
  reaction: {
    thumbsUp: 'палец нагоре',
    clap: 'аплодисменти',
    laugh: 'смях',
    wow: 'изненада',
    sad: 'тъга',
    angry: 'гняв',
    heart: 'сърце',
    fire: 'огън',
  },
  reacted: (reaction) => `реагира: ${reaction}`,
  inputLabel: 'Съобщение до масата',
  placeholder: 'Напишете съобщение…',
  send: 'Изпрати',
  charactersLeft: (n) => `Остават ${n} знака`,
  off: 'Домакинът изключи текстовия чат на тази маса. Бързите фрази и реакциите работят.',
  spectator: 'Вие гледате: зрителите четат чата, пишат само играчите.',
  empty: 'Още нищо не е казано.',
  mute: (name) => `Заглуши ${name}`,
  unmute: (name) => `Включи отново ${name}`,
  mutedCount: (n) =>
    n === 1 ? '1 съобщение от заглушен играч е скрито' : `${n} съобщения от заглушени играчи са скрити`,
  mutedNote: 'Заглушаването е само на това устройство; другите не научават.',
  you: 'ти',
  optionLabel: 'Текстов чат на масата',
  optionHint: 'Бързите фрази и реакциите са винаги включени.',
  error: (code, message) =>
    ({
      CHAT_RATE_LIMITED: 'Твърде много съобщения: изчакайте няколко секунди.',
      CHAT_OFF: 'Текстовият чат е изключен на тази маса.',
      NOT_SEATED: 'Пишат само играчите, седнали на тази маса.',
      INVALID_MESSAGE: 'Съобщението не може да се изпрати (празно, твърде дълго или с невидими знаци).',
    })[code] ?? `Не е изпратено: ${message}`,
};

export const CHAT_DICTS: Record<Lang, ChatDict> = { en, ar, el, bg };

/** The chat texts in the page's language. */
export function useChatTexts(): ChatDict {
  return CHAT_DICTS[useI18n().lang];
}
