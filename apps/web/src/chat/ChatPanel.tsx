import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import {
  CHAT_PHRASES,
  CHAT_REACTIONS,
  CHAT_TEXT_MAX_CHARACTERS,
  REACTION_EMOJI,
  type ChatMessage,
} from '@dominoes/protocol';
import { useSession } from '../hooks';
import { useChatTexts, type ChatDict } from '../i18n/chat';
import { Avatar } from '../components/Avatar';
import { chatStoreOf, useChatState, type ChatStore } from './chat-store';
import './chat.css';

/** The page's chat store (made on first use, so the table's history is not missed). */
export function useChatStore(): ChatStore {
  const [, session] = useSession();
  return chatStoreOf(session);
}

const PHONE = '(max-width: 700px)';
const startsOpen = (): boolean => !(typeof matchMedia === 'function' && matchMedia(PHONE).matches);

/** What a message says, in the reader's language: a phrase by its id, a reaction as its emoji. */
function said(t: ChatDict, message: ChatMessage): string {
  switch (message.body.kind) {
    case 'text':
      return message.body.text;
    case 'phrase':
      return t.phrase[message.body.phrase];
    case 'reaction':
      return REACTION_EMOJI[message.body.reaction];
  }
}

const characters = (text: string): number =>
  Array.from(new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)).length;

/**
 * The table's chat (decision 0020): the recent messages, quick phrases, reactions, a text input
 * when the host left text chat on, and a mute per player (this reader only). `mySeat` null: a
 * spectator, who reads. Collapsible; closed at first on a phone. Every name and text is a React text
 * node: nothing a player sends is ever read as HTML.
 */
export function ChatPanel({ mySeat }: { readonly mySeat: number | null }) {
  const t = useChatTexts();
  const [session] = useSession();
  const store = useChatStore();
  const chat = useChatState(store);
  const [open, setOpen] = useState(startsOpen);
  const [draft, setDraft] = useState('');
  const [phrasesOpen, setPhrasesOpen] = useState(false);
  const log = useRef<HTMLOListElement>(null);
  const titleId = useId();
  const me = session.identity?.playerId;

  useEffect(() => store.setOpen(open), [store, open]);
  const visible = chat.messages.filter((m) => !chat.muted.has(m.playerId));
  const hidden = chat.messages.length - visible.length;
  const mutedHere = [
    ...new Map(chat.messages.filter((m) => chat.muted.has(m.playerId)).map((m) => [m.playerId, m.name])),
  ];
  useEffect(() => {
    const list = log.current;
    if (list) list.scrollTop = list.scrollHeight;
  }, [visible.length, open]);

  const left = CHAT_TEXT_MAX_CHARACTERS - characters(draft.trim());
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const text = draft.trim();
    if (text === '' || left < 0) return;
    void store.say(text).then((ok) => {
      if (ok) setDraft('');
    });
  };

  return (
    <section
      className="card compact chat-panel"
      aria-labelledby={titleId}
      data-testid="chat"
      data-open={open}
    >
      <div className="chat-head">
        <h2 id={titleId}>{t.title}</h2>
        {!open && chat.unread > 0 && (
          <span className="chat-unread" data-testid="chat-unread">
            {t.unread(chat.unread)}
          </span>
        )}
        <button
          type="button"
          className="chat-toggle"
          aria-expanded={open}
          onClick={() => setOpen(!open)}
          data-testid="chat-toggle"
        >
          {open ? t.hide : t.show}
        </button>
      </div>
      {open && (
        <>
          <ol
            className="chat-log"
            ref={log}
            aria-live="polite"
            aria-relevant="additions"
            data-testid="chat-log"
          >
            {visible.length === 0 && <li className="muted chat-empty">{t.empty}</li>}
            {visible.map((m) => {
              const own = m.playerId === me;
              return (
                <li
                  key={m.id}
                  className={`chat-message kind-${m.body.kind}${own ? ' own' : ''}`}
                  data-testid="chat-message"
                  data-kind={m.body.kind}
                  data-player={m.playerId}
                >
                  <Avatar name={m.name} size="sm" />
                  <span className="chat-who">
                    <bdi className="chat-name" data-testid="chat-name">
                      {m.name}
                    </bdi>
                    {own && <span className="muted"> ({t.you})</span>}
                  </span>
                  <span
                    className="chat-text"
                    dir="auto"
                    data-testid="chat-text"
                    {...(m.body.kind === 'reaction'
                      ? { role: 'img', 'aria-label': t.reacted(t.reaction[m.body.reaction]) }
                      : {})}
                  >
                    {said(t, m)}
                  </span>
                  {!own && (
                    <button
                      type="button"
                      className="chat-mute"
                      aria-label={t.mute(m.name)}
                      title={t.mute(m.name)}
                      onClick={() => store.toggleMute(m.playerId)}
                      data-testid="chat-mute"
                    >
                      <span aria-hidden="true">🔇</span>
                    </button>
                  )}
                </li>
              );
            })}
          </ol>
          {hidden > 0 && (
            <div className="chat-muted" data-testid="chat-muted">
              <p className="muted">
                {t.mutedCount(hidden)} {t.mutedNote}
              </p>
              {mutedHere.map(([playerId, name]) => (
                <button key={playerId} type="button" onClick={() => store.toggleMute(playerId)}>
                  {t.unmute(name)}
                </button>
              ))}
            </div>
          )}
          {mySeat === null ? (
            <p className="muted" data-testid="chat-spectator">
              {t.spectator}
            </p>
          ) : (
            <>
              <div className="chat-reactions" role="group" aria-label={t.reactionsLabel}>
                {CHAT_REACTIONS.map((r) => (
                  <button
                    key={r}
                    type="button"
                    aria-label={t.reaction[r]}
                    title={t.reaction[r]}
                    onClick={() => void store.react(r)}
                    data-testid={`react-${r}`}
                  >
                    <span aria-hidden="true">{REACTION_EMOJI[r]}</span>
                  </button>
                ))}
              </div>
              <button
                type="button"
                className="chat-phrases-toggle"
                aria-expanded={phrasesOpen}
                aria-controls={`${titleId}-phrases`}
                onClick={() => setPhrasesOpen(!phrasesOpen)}
                data-testid="chat-phrases-toggle"
              >
                {t.phrasesLabel}
                <span aria-hidden="true">{phrasesOpen ? ' ▴' : ' ▾'}</span>
              </button>
              {phrasesOpen && (
                <div
                  className="chat-phrases"
                  id={`${titleId}-phrases`}
                  role="group"
                  aria-label={t.phrasesLabel}
                >
                  {CHAT_PHRASES.map((p) => (
                    <button
                      key={p}
                      type="button"
                      onClick={() => {
                        setPhrasesOpen(false);
                        void store.phrase(p);
                      }}
                      data-testid={`phrase-${p}`}
                    >
                      {t.phrase[p]}
                    </button>
                  ))}
                </div>
              )}
              {chat.enabled ? (
                <form className="chat-form" onSubmit={submit}>
                  <input
                    type="text"
                    value={draft}
                    onChange={(e) => {
                      setDraft(e.target.value);
                      store.clearProblem();
                    }}
                    aria-label={t.inputLabel}
                    placeholder={t.placeholder}
                    dir="auto"
                    autoComplete="off"
                    enterKeyHint="send"
                    aria-describedby={left < 20 ? `${titleId}-left` : undefined}
                    data-testid="chat-input"
                  />
                  <button type="submit" disabled={draft.trim() === '' || left < 0} data-testid="chat-send">
                    {t.send}
                  </button>
                  {left < 20 && (
                    <span id={`${titleId}-left`} className={`chat-left${left < 0 ? ' over' : ''}`}>
                      {t.charactersLeft(Math.max(0, left))}
                    </span>
                  )}
                </form>
              ) : (
                <p className="muted" data-testid="chat-off">
                  {t.off}
                </p>
              )}
              {chat.problem && (
                <p
                  className="chat-problem"
                  role="alert"
                  data-testid="chat-problem"
                  data-code={chat.problem.code}
                >
                  {t.error(chat.problem.code, chat.problem.message)}
                </p>
              )}
            </>
          )}
        </>
      )}
    </section>
  );
}

/** A seat's latest reaction, for a few seconds, beside the seat's name. */
export function SeatReaction({ seat }: { readonly seat: number }) {
  const t = useChatTexts();
  const chat = useChatState(useChatStore());
  const shown = chat.reactions[seat];
  if (!shown) return null;
  return (
    <span
      key={shown.id}
      className="seat-reaction"
      role="img"
      aria-label={t.reacted(t.reaction[shown.reaction])}
      data-testid="seat-reaction"
      data-reaction={shown.reaction}
    >
      {REACTION_EMOJI[shown.reaction]}
    </span>
  );
}
